package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

type dataBody[T any] struct {
	Data T `json:"data"`
}

// ok answers 200 with {"data": v}.
func ok[T any](c *fiber.Ctx, v T) error {
	return c.JSON(dataBody[T]{Data: v})
}

// sendJSON answers 200 with body, an encoded JSON document, as ok would.
// It copies body (c.Send would not), so body may be shared or reused.
func sendJSON(c *fiber.Ctx, body []byte) error {
	c.Response().SetBody(body)
	c.Response().Header.SetContentType(fiber.MIMEApplicationJSON)
	return nil
}

// decode reads a JSON request body into dst. Unknown fields are ignored;
// a malformed body or a field of the wrong type is an invalid-parameters
// error that names the field.
func decode(c *fiber.Ctx, dst any) error {
	body := c.Body()
	if len(strings.TrimSpace(string(body))) == 0 {
		return models.Errorf(models.CodeInvalidParameters, "A JSON request body is required")
	}
	err := json.Unmarshal(body, dst)
	if err == nil {
		return nil
	}
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			return models.Errorf(models.CodeInvalidParameters, "The request body must be a JSON object")
		}
		return models.InvalidField(field, fmt.Sprintf("must be %s, not %s", jsonKind(typeErr.Type.Kind().String()), typeErr.Value))
	case errors.As(err, &syntaxErr):
		return models.Errorf(models.CodeInvalidParameters, "Malformed JSON body at byte %d: %s", syntaxErr.Offset, syntaxErr.Error())
	}
	return models.Errorf(models.CodeInvalidParameters, "Malformed JSON body: %s", err.Error())
}

// jsonKind names a Go kind the way a JSON user thinks of it.
func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "struct", "map":
		return "an object"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	}
	return "of another type"
}
