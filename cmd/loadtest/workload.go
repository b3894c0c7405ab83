package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"time"
)

// maxRequestsPerClient bounds a client's loop by count as well as by time.
const maxRequestsPerClient = 1_000_000

// Expected error answers: many clients share an account, so quotas and
// the capacity run out; that is the server doing its job.
var (
	quotaExceeded        = expectedError{400, "global/quota-exceeded"}
	insufficientCapacity = expectedError{400, "instance-operations/launch/insufficient-capacity"}
)

// launchTargets are the instance types and regions the run offers
// capacity for (see serverArgs).
var launchTargets = [][2]string{{"gpu_1x_a10", "us-east-1"}, {"gpu_1x_a6000", "us-west-1"}}

// bootKey is the SSH key each account has before the load starts, named
// in launches; clients never delete it.
const bootKey = "loadtest-boot"

// worker is one client of the mixed workload, with the objects it
// created, so that it deletes, patches and comments on its own.
type worker struct {
	*client
	id  int
	rng *rand.Rand
	n   int // names made so far

	filesystems, rulesets, tickets, instances, sshKeys []string
	auditToken                                         string
}

// operation is one kind of request in the mix, picked with weight.
type operation struct {
	weight int
	run    func(w *worker, ctx context.Context)
}

// mix is the workload: reads weigh more than writes, as with real users,
// and writes touch every table the deadlock and queueing reports name.
var mix = []operation{
	{10, (*worker).listFilesystems},
	{6, (*worker).createFilesystem},
	{4, (*worker).deleteFilesystem},
	{5, (*worker).putFirewallRules},
	{4, (*worker).listRulesets},
	{3, (*worker).createRuleset},
	{3, (*worker).patchRuleset},
	{2, (*worker).deleteRuleset},
	{6, (*worker).listInstances},
	{2, (*worker).launch},
	{2, (*worker).terminate},
	{4, (*worker).listSSHKeys},
	{3, (*worker).createSSHKey},
	{4, (*worker).listTickets},
	{3, (*worker).createTicket},
	{3, (*worker).commentTicket},
	{6, (*worker).listAuditEvents},
	{3, (*worker).listInstanceTypes},
	{2, (*worker).listRegions},
}

// pick chooses an operation by weight.
func pick(rng *rand.Rand, ops []operation) operation {
	total := 0
	for _, op := range ops {
		total += op.weight
	}
	n := rng.IntN(total)
	for _, op := range ops {
		if n < op.weight {
			return op
		}
		n -= op.weight
	}
	return ops[len(ops)-1]
}

// loop runs random operations until end, until ctx ends (Ctrl-C), or
// until the count bound. A request started before end runs to its answer
// or its timeout, so a server that stalls at the end is still seen.
func (w *worker) loop(ctx context.Context, end time.Time) {
	for i := 0; i < maxRequestsPerClient && ctx.Err() == nil && time.Now().Before(end); i++ {
		pick(w.rng, mix).run(w, ctx)
	}
}

func (w *worker) name(prefix string) string {
	w.n++
	return fmt.Sprintf("%s-%d-%d", prefix, w.id, w.n)
}

// take removes and returns the oldest of ids.
func take(ids *[]string) string {
	id := (*ids)[0]
	*ids = (*ids)[1:]
	return id
}

type idBody struct {
	Data struct {
		ID string `json:"id"`
	} `json:"data"`
}

func (w *worker) listFilesystems(ctx context.Context) {
	w.do(ctx, "list filesystems", "GET", "/api/v1/filesystems", nil, nil)
}

func (w *worker) createFilesystem(ctx context.Context) {
	var out idBody
	in := map[string]string{"name": w.name("lt"), "region": "us-east-1"}
	if w.do(ctx, "create filesystem", "POST", "/api/v1/filesystems", in, &out, quotaExceeded) {
		w.filesystems = append(w.filesystems, out.Data.ID)
	}
}

// deleteFilesystem deletes the worker's oldest filesystem. Whatever the
// answer, the id is forgotten: after a timeout the delete may have
// happened, and a second try would be a confusing 404.
func (w *worker) deleteFilesystem(ctx context.Context) {
	if len(w.filesystems) == 0 {
		w.createFilesystem(ctx)
		return
	}
	w.do(ctx, "delete filesystem", "DELETE", "/api/v1/filesystems/"+take(&w.filesystems), nil, nil)
}

func (w *worker) rules() []map[string]any {
	port := 1024 + w.rng.IntN(60000)
	return []map[string]any{
		{"protocol": "tcp", "port_range": []int{22, 22}, "source_network": "0.0.0.0/0", "description": "ssh"},
		{"protocol": "tcp", "port_range": []int{port, port + 10}, "source_network": "203.0.113.0/24",
			"description": fmt.Sprintf("load test %d", w.id)},
	}
}

func (w *worker) putFirewallRules(ctx context.Context) {
	w.do(ctx, "put firewall rules", "PUT", "/api/v1/firewall-rules", map[string]any{"data": w.rules()}, nil)
}

func (w *worker) listRulesets(ctx context.Context) {
	w.do(ctx, "list rulesets", "GET", "/api/v1/firewall-rulesets", nil, nil)
}

func (w *worker) createRuleset(ctx context.Context) {
	var out idBody
	in := map[string]any{"name": w.name("lt"), "region": "us-east-1", "rules": w.rules()}
	if w.do(ctx, "create ruleset", "POST", "/api/v1/firewall-rulesets", in, &out, quotaExceeded) {
		w.rulesets = append(w.rulesets, out.Data.ID)
	}
}

func (w *worker) patchRuleset(ctx context.Context) {
	if len(w.rulesets) == 0 {
		w.createRuleset(ctx)
		return
	}
	id := w.rulesets[w.rng.IntN(len(w.rulesets))]
	w.do(ctx, "patch ruleset", "PATCH", "/api/v1/firewall-rulesets/"+id, map[string]any{"rules": w.rules()}, nil)
}

func (w *worker) deleteRuleset(ctx context.Context) {
	if len(w.rulesets) == 0 {
		w.createRuleset(ctx)
		return
	}
	w.do(ctx, "delete ruleset", "DELETE", "/api/v1/firewall-rulesets/"+take(&w.rulesets), nil, nil)
}

func (w *worker) listInstances(ctx context.Context) {
	w.do(ctx, "list instances", "GET", "/api/v1/instances", nil, nil)
}

func (w *worker) launch(ctx context.Context) {
	var out struct {
		Data struct {
			InstanceIDs []string `json:"instance_ids"`
		} `json:"data"`
	}
	t := launchTargets[w.rng.IntN(len(launchTargets))]
	in := map[string]any{"region_name": t[1], "instance_type_name": t[0], "ssh_key_names": []string{bootKey},
		"name": w.name("lt")}
	if w.do(ctx, "launch instance", "POST", "/api/v1/instance-operations/launch", in, &out, insufficientCapacity) {
		w.instances = append(w.instances, out.Data.InstanceIDs...)
	}
}

func (w *worker) terminate(ctx context.Context) {
	if len(w.instances) == 0 {
		w.launch(ctx)
		return
	}
	in := map[string]any{"instance_ids": []string{take(&w.instances)}}
	w.do(ctx, "terminate instance", "POST", "/api/v1/instance-operations/terminate", in, nil)
}

func (w *worker) listSSHKeys(ctx context.Context) {
	w.do(ctx, "list ssh keys", "GET", "/api/v1/ssh-keys", nil, nil)
}

// createSSHKey has the server generate a pair; past a few keys the worker
// deletes its oldest instead, so the list stays short.
func (w *worker) createSSHKey(ctx context.Context) {
	if len(w.sshKeys) >= 3 {
		w.do(ctx, "delete ssh key", "DELETE", "/api/v1/ssh-keys/"+take(&w.sshKeys), nil, nil)
		return
	}
	var out idBody
	if w.do(ctx, "create ssh key", "POST", "/api/v1/ssh-keys", map[string]string{"name": w.name("lt")}, &out) {
		w.sshKeys = append(w.sshKeys, out.Data.ID)
	}
}

func (w *worker) listTickets(ctx context.Context) {
	w.do(ctx, "list tickets", "GET", "/api/v1/tickets", nil, nil)
}

func (w *worker) createTicket(ctx context.Context) {
	var out idBody
	in := map[string]string{"subject": "Load test " + w.name("t"), "description": "Opened by cmd/loadtest.",
		"type": "service_request"}
	if w.do(ctx, "create ticket", "POST", "/api/v1/tickets", in, &out) {
		w.tickets = append(w.tickets, out.Data.ID)
	}
}

func (w *worker) commentTicket(ctx context.Context) {
	if len(w.tickets) == 0 {
		w.createTicket(ctx)
		return
	}
	id := w.tickets[w.rng.IntN(len(w.tickets))]
	in := map[string]any{"comment": map[string]string{"body": "Still there? " + w.name("c")}}
	w.do(ctx, "comment ticket", "PATCH", "/api/v1/tickets/"+id, in, nil)
}

// listAuditEvents reads the audit log page after page, as a script
// following page_token would, and starts again after the last page.
func (w *worker) listAuditEvents(ctx context.Context) {
	var out struct {
		PageToken *string `json:"page_token"`
	}
	path := "/api/v1/audit-events"
	if w.auditToken != "" {
		path += "?page_token=" + url.QueryEscape(w.auditToken)
	}
	w.auditToken = ""
	if w.do(ctx, "list audit events", "GET", path, nil, &out) && out.PageToken != nil {
		w.auditToken = *out.PageToken
	}
}

func (w *worker) listInstanceTypes(ctx context.Context) {
	w.do(ctx, "list instance types", "GET", "/api/v1/instance-types", nil, nil)
}

func (w *worker) listRegions(ctx context.Context) {
	w.do(ctx, "list regions", "GET", "/api/v1/regions", nil, nil)
}
