package api_test

import (
	"maps"
	"net/http"
	"strings"
	"testing"

	"cloudplane/models"
)

// textField is one text field of one request body: body builds a valid
// request with the field set to v.
type textField struct {
	method, path, field string
	multiline           bool
	body                func(v string) any
}

// attackText are values the text rule refuses everywhere: NUL (which
// PostgreSQL refuses in text, so it used to be a 500 there), other C0
// controls, DEL and a C1 control. JSON cannot carry invalid UTF-8 (the
// decoder turns it into U+FFFD), so that case is the dashboard's.
var attackText = []string{"a\x00b", "\x00", "a\x01b", "a\x1bb", "a\x7fb", "a\u0085b"}

func rule(description string) map[string]any {
	return map[string]any{"protocol": "tcp", "port_range": []int{22, 22}, "source_network": "0.0.0.0/0", "description": description}
}

// textFields lists every text field of every API body, against the
// objects e holds (a ruleset, an instance and a ticket).
func textFields(rulesetID, instanceID, ticketID string) []textField {
	ticket := func(k string) func(string) any {
		return func(v string) any {
			b := map[string]any{"subject": "s", "description": "d", "type": "incident", "severity": "sev_2"}
			b[k] = v
			return b
		}
	}
	return []textField{
		{"POST", "/api/v1/filesystems", "name", false, func(v string) any { return map[string]any{"name": v, "region": "us-east-1"} }},
		{"POST", "/api/v1/filesystems", "region", false, func(v string) any { return map[string]any{"name": "fs", "region": v} }},
		{"PUT", "/api/v1/firewall-rules", "data.0.description", true, func(v string) any { return map[string]any{"data": []any{rule(v)}} }},
		{"PUT", "/api/v1/firewall-rules", "data.0.protocol", false, func(v string) any {
			r := rule("")
			r["protocol"] = v
			return map[string]any{"data": []any{r}}
		}},
		{"PUT", "/api/v1/firewall-rules", "data.0.source_network", false, func(v string) any {
			r := rule("")
			r["source_network"] = v
			return map[string]any{"data": []any{r}}
		}},
		{"POST", "/api/v1/firewall-rulesets", "name", false, func(v string) any {
			return map[string]any{"name": v, "region": "us-east-1", "rules": []any{}}
		}},
		{"POST", "/api/v1/firewall-rulesets", "region", false, func(v string) any {
			return map[string]any{"name": "r", "region": v, "rules": []any{}}
		}},
		{"POST", "/api/v1/firewall-rulesets", "rules.0.description", true, func(v string) any {
			return map[string]any{"name": "r", "region": "us-east-1", "rules": []any{rule(v)}}
		}},
		{"PATCH", "/api/v1/firewall-rulesets/" + rulesetID, "name", false, func(v string) any { return map[string]any{"name": v} }},
		{"PATCH", "/api/v1/firewall-rulesets/" + rulesetID, "rules.0.description", true, func(v string) any {
			return map[string]any{"rules": []any{rule(v)}}
		}},
		{"PATCH", "/api/v1/firewall-rulesets/global", "rules.0.description", true, func(v string) any {
			return map[string]any{"rules": []any{rule(v)}}
		}},
		{"POST", "/api/v1/instance-operations/launch", "region_name", false, func(v string) any { return launchBody(map[string]any{"region_name": v}) }},
		{"POST", "/api/v1/instance-operations/launch", "instance_type_name", false, func(v string) any {
			return launchBody(map[string]any{"instance_type_name": v})
		}},
		{"POST", "/api/v1/instance-operations/launch", "ssh_key_names.0", false, func(v string) any {
			return launchBody(map[string]any{"ssh_key_names": []string{v}})
		}},
		{"POST", "/api/v1/instance-operations/launch", "name", false, func(v string) any { return launchBody(map[string]any{"name": v}) }},
		{"POST", "/api/v1/instance-operations/launch", "hostname", false, func(v string) any { return launchBody(map[string]any{"hostname": v}) }},
		{"POST", "/api/v1/instance-operations/launch", "file_system_names.0", false, func(v string) any {
			return launchBody(map[string]any{"file_system_names": []string{v}})
		}},
		{"POST", "/api/v1/instance-operations/launch", "file_system_mounts.0.mount_point", false, func(v string) any {
			return launchBody(map[string]any{"file_system_mounts": []any{map[string]any{"mount_point": v, "file_system_id": models.NewID()}}})
		}},
		{"POST", "/api/v1/instance-operations/launch", "file_system_mounts.0.file_system_id", false, func(v string) any {
			return launchBody(map[string]any{"file_system_mounts": []any{map[string]any{"mount_point": "/data/x", "file_system_id": v}}})
		}},
		{"POST", "/api/v1/instance-operations/launch", "firewall_rulesets.0.id", false, func(v string) any {
			return launchBody(map[string]any{"firewall_rulesets": []any{map[string]any{"id": v}}})
		}},
		{"POST", "/api/v1/instance-operations/launch", "tags.0.key", false, func(v string) any {
			return launchBody(map[string]any{"tags": []any{map[string]any{"key": v, "value": "x"}}})
		}},
		{"POST", "/api/v1/instance-operations/launch", "tags.0.value", false, func(v string) any {
			return launchBody(map[string]any{"tags": []any{map[string]any{"key": "team", "value": v}}})
		}},
		{"POST", "/api/v1/instance-operations/terminate", "instance_ids.0", false, func(v string) any { return map[string]any{"instance_ids": []string{v}} }},
		{"POST", "/api/v1/instance-operations/restart", "instance_ids.0", false, func(v string) any { return map[string]any{"instance_ids": []string{v}} }},
		{"POST", "/api/v1/instances/" + instanceID, "name", false, func(v string) any { return map[string]any{"name": v} }},
		{"POST", "/api/v1/ssh-keys", "name", false, func(v string) any { return map[string]any{"name": v} }},
		{"POST", "/api/v1/ssh-keys", "public_key", false, func(v string) any {
			return map[string]any{"name": "k2", "public_key": edPublicKey + v}
		}},
		{"POST", "/api/v1/tickets", "subject", false, ticket("subject")},
		{"POST", "/api/v1/tickets", "description", true, ticket("description")},
		{"POST", "/api/v1/tickets", "type", false, ticket("type")},
		{"POST", "/api/v1/tickets", "severity", false, ticket("severity")},
		{"POST", "/api/v1/tickets", "ip", false, ticket("ip")},
		{"POST", "/api/v1/tickets", "instance_id", false, ticket("instance_id")},
		{"POST", "/api/v1/tickets", "cluster_id", false, ticket("cluster_id")},
		{"PATCH", "/api/v1/tickets/" + ticketID, "comment.body", true, func(v string) any { return map[string]any{"comment": map[string]any{"body": v}} }},
		{"PATCH", "/api/v1/tickets/" + ticketID, "status", false, func(v string) any { return map[string]any{"status": v} }},
		{"PATCH", "/api/v1/tickets/" + ticketID, "severity", false, func(v string) any { return map[string]any{"severity": v} }},
	}
}

// textFixtures makes the objects the text fields' requests change: a
// ruleset, an instance and a ticket.
func (e *env) textFixtures() (rulesetID, instanceID, ticketID string) {
	e.t.Helper()
	var rs struct{ ID string }
	e.do(http.MethodPost, "/api/v1/firewall-rulesets", map[string]any{"name": "r", "region": "us-east-1", "rules": []any{}}).
		expect(http.StatusOK).data(&rs)
	e.addSSHKey(e.key, "key")
	return rs.ID, e.launchOne(e.key), e.createTicket(incidentBody)
}

// TestTextFieldsRefuseControlCharacters sends every attack value in every
// text field of every body: each is 400 global/invalid-parameters naming
// the field, on SQLite and PostgreSQL alike, and changes nothing. Line
// breaks and tabs still pass where text may span lines.
func TestTextFieldsRefuseControlCharacters(t *testing.T) {
	e := newEnv(t)
	fields := textFields(e.textFixtures())
	for _, tf := range fields {
		t.Run(tf.method+" "+tf.path+" "+tf.field, func(t *testing.T) {
			e.t = t
			for _, v := range attackText {
				before := e.snapshot()
				r := e.do(tf.method, tf.path, tf.body(v)).expectError(http.StatusBadRequest, models.CodeInvalidParameters)
				if msg := r.message(); !strings.Contains(msg, tf.field+":") {
					t.Errorf("%q: message %q does not name %s", v, msg, tf.field)
				}
				if after := e.snapshot(); !maps.Equal(after, before) {
					t.Errorf("%q: refused request changed the account: %v, then %v", v, before, after)
				}
			}
			if tf.multiline {
				if r := e.do(tf.method, tf.path, tf.body("two\r\nlines\tand a tab")); r.Status/100 != 2 {
					t.Errorf("line breaks and a tab refused: %d %s", r.Status, r.Body)
				}
			}
		})
	}
}
