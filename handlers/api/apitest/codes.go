package apitest

import (
	"fmt"
	"net/http"
	"slices"
	"sort"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
)

// ErrorCodes are the error codes the document allows for method and path
// (path may carry a query string) answering status: the const, enum or
// example values of the error's code in that response's schema, through
// $ref, allOf, anyOf and oneOf. It is nil when the operation or the
// status is not documented, or when the schema names no code.
func (s *Spec) ErrorCodes(method, path string, status int) []string {
	if s == nil {
		return nil
	}
	req, err := http.NewRequest(method, "http://localhost"+path, nil)
	if err != nil {
		return nil
	}
	route, _, err := s.findRoute(req)
	if err != nil {
		return nil
	}
	return declaredCodes(route, status)
}

// Documents tells whether the document describes method on path (path may
// carry a query string).
func (s *Spec) Documents(method, path string) bool {
	if s == nil {
		return false
	}
	req, err := http.NewRequest(method, "http://localhost"+path, nil)
	if err != nil {
		return false
	}
	_, _, err = s.findRoute(req)
	return err == nil
}

// declaredCodes reads the codes a route's response for status declares.
func declaredCodes(route *routers.Route, status int) []string {
	res := route.Operation.Responses.Status(status)
	if res == nil || res.Value == nil {
		return nil
	}
	media := res.Value.Content.Get("application/json")
	if media == nil || media.Schema == nil {
		return nil
	}
	codes := map[string]bool{}
	collectErrorCodes(media.Schema, codes, map[*openapi3.Schema]bool{})
	if len(codes) == 0 {
		return nil
	}
	out := make([]string, 0, len(codes))
	for c := range codes {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// collectErrorCodes adds the codes of the envelope schema s ({"error":
// {"code": ...}}) to codes. seen stops recursive schemas.
func collectErrorCodes(ref *openapi3.SchemaRef, codes map[string]bool, seen map[*openapi3.Schema]bool) {
	eachBranch(ref, seen, func(s *openapi3.Schema) {
		if e := s.Properties["error"]; e != nil {
			eachBranch(e, map[*openapi3.Schema]bool{}, func(e *openapi3.Schema) {
				if c := e.Properties["code"]; c != nil {
					eachBranch(c, map[*openapi3.Schema]bool{}, func(c *openapi3.Schema) { addCodes(c, codes) })
				}
			})
		}
	})
}

// eachBranch calls f on s and on every schema its allOf, anyOf and oneOf
// reach: an error's code may be constrained in any of them.
func eachBranch(ref *openapi3.SchemaRef, seen map[*openapi3.Schema]bool, f func(*openapi3.Schema)) {
	if ref == nil || ref.Value == nil || seen[ref.Value] {
		return
	}
	s := ref.Value
	seen[s] = true
	f(s)
	for _, group := range []openapi3.SchemaRefs{s.AllOf, s.AnyOf, s.OneOf} {
		for _, branch := range group {
			eachBranch(branch, seen, f)
		}
	}
}

// addCodes adds what a code's schema allows: its const or enum, else (a
// document that only illustrates) its examples.
func addCodes(s *openapi3.Schema, codes map[string]bool) {
	allowed := slices.Clone(s.Enum)
	if s.Const != nil {
		allowed = append(allowed, s.Const)
	}
	if len(allowed) == 0 {
		allowed = append(allowed, s.Examples...)
		if s.Example != nil {
			allowed = append(allowed, s.Example)
		}
	}
	for _, v := range allowed {
		if code, ok := v.(string); ok {
			codes[code] = true
		}
	}
}

// checkDeclaredCode fails an error answer whose code is not one the
// operation's response for status declares. A response that declares no
// code leaves the body to the schema.
func checkDeclaredCode(route *routers.Route, status int, body []byte) error {
	declared := declaredCodes(route, status)
	if len(declared) == 0 {
		return nil
	}
	code := errorCode(body)
	if code == "" || slices.Contains(declared, code) {
		return nil
	}
	return fmt.Errorf("error code %q is not one %s %s declares for %d: %v", code, route.Method, route.Path, status, declared)
}
