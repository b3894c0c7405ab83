package models

// dueEndpoint is an enabled endpoint with deliveries due that no lease
// holds, as a claim finds it.
type dueEndpoint struct {
	EndpointID string
	AccountID  string
	Due        int // claimable deliveries
}

// claimShares decides how many due deliveries of each endpoint one claim
// takes, so that no account crowds out another:
//
//   - an endpoint never has more than endpointCap deliveries in flight,
//     nor an account more than accountCap, counted across dispatchers;
//   - the claim's last reserve workers go only to accounts with nothing
//     in flight, one each: an account whose receivers hang holds its
//     workers until the timeout, and a newly active account must not wait
//     for them;
//   - the other workers go one at a time to the account with the fewest
//     in flight, and within an account to its endpoints in turn.
//
// Endpoints come in the order of their oldest due delivery, which breaks
// ties between accounts.
type claimShares struct {
	limit, reserve          int
	endpointCap, accountCap int
}

type shareAccount struct {
	busy, taken int
	endpoints   []*shareEndpoint
	next        int  // the endpoint whose turn it is
	full        bool // at a cap, or nothing left to take
}

type shareEndpoint struct {
	id               string
	due, busy, taken int
}

// allocate returns the deliveries to take per endpoint, given what is in
// flight per endpoint and per account, and whether due deliveries were
// left for a cap or the reserve while workers stayed idle.
func (c claimShares) allocate(due []dueEndpoint, endpointBusy, accountBusy map[string]int) (map[string]int, bool) {
	var order []*shareAccount
	accounts := map[string]*shareAccount{}
	for _, d := range due {
		a := accounts[d.AccountID]
		if a == nil {
			a = &shareAccount{busy: accountBusy[d.AccountID]}
			accounts[d.AccountID] = a
			order = append(order, a)
		}
		a.endpoints = append(a.endpoints, &shareEndpoint{id: d.EndpointID, due: d.Due, busy: endpointBusy[d.EndpointID]})
	}
	shared, reserved := max(0, c.limit-c.reserve), min(c.limit, c.reserve)
	for _, a := range order {
		if a.busy > 0 {
			continue
		}
		if reserved > 0 && c.give(a) {
			reserved--
		} else if shared > 0 && c.give(a) {
			shared--
		}
	}
	for shared > 0 {
		least := leastBusy(order)
		if least == nil {
			break
		}
		if c.give(least) { // otherwise it is marked full: the next turn tries another
			shared--
		}
	}
	take, left := map[string]int{}, false
	for _, a := range order {
		for _, e := range a.endpoints {
			if e.taken > 0 {
				take[e.id] = e.taken
			}
			left = left || e.taken < e.due
		}
	}
	return take, left && sum(take) < c.limit
}

// leastBusy is the first account, in order, of those not full with the
// fewest deliveries in flight and taken.
func leastBusy(order []*shareAccount) *shareAccount {
	var least *shareAccount
	for _, a := range order {
		if !a.full && (least == nil || a.busy+a.taken < least.busy+least.taken) {
			least = a
		}
	}
	return least
}

// give takes one more delivery for a, from the next of its endpoints in
// turn that has one due and room, and reports whether it could; an
// account that cannot is marked full.
func (c claimShares) give(a *shareAccount) bool {
	if a.busy+a.taken >= c.accountCap {
		a.full = true
		return false
	}
	for range a.endpoints {
		e := a.endpoints[a.next]
		a.next = (a.next + 1) % len(a.endpoints)
		if e.taken < e.due && e.busy+e.taken < c.endpointCap {
			e.taken++
			a.taken++
			return true
		}
	}
	a.full = true
	return false
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
