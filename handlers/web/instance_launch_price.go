package web

import (
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// LaunchPrice answers the launch form's price summary for the chosen
// instance_type_name and quantity, the fragment htmx swaps in when
// either changes.
func (h *Handlers) LaunchPrice(c *fiber.Ctx) error {
	return renderAlone(c, views.LaunchPriceSummary(launchPrice(c.Query("instance_type_name"), c.Query("quantity"))))
}

// launchPrice quotes the launch (models.EstimateLaunch) when the type and
// quantity make sense, and lists every type's prices in any case.
func launchPrice(typeName, quantity string) views.LaunchPrice {
	p := views.LaunchPrice{Hours: models.HoursPerMonth}
	for _, t := range models.InstanceTypes {
		e, _ := models.EstimateLaunch(t.Name, 1)
		p.Types = append(p.Types, views.LaunchTypePrice{Name: t.Name, PerHour: e.PerHourCents, PerMonth: e.PerMonthCents})
	}
	q, ok := launchQuantity(quantity)
	if !ok || typeName == "" {
		return p
	}
	n := 1
	if q != nil {
		n = *q
	}
	if e, err := models.EstimateLaunch(typeName, n); err == nil {
		p.Chosen, p.TypeName, p.Quantity, p.PerHour, p.PerMonth = true, e.InstanceTypeName, e.Quantity, e.PerHourCents, e.PerMonthCents
	}
	return p
}

// launchQuantity reads the form's quantity: blank is nil (one, as the
// API's default); ok is false unless it is a whole number.
func launchQuantity(v string) (*int, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil, true
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return nil, false
	}
	return &n, true
}
