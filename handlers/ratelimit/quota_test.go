package ratelimit

import (
	"testing"
	"time"
)

func TestParseQuota(t *testing.T) {
	for _, tc := range []struct {
		spec    string
		burst   int
		want    Quota
		enabled bool
		wantErr bool
	}{
		{spec: "1/s", burst: 5, want: Quota{time.Second, 5}, enabled: true},
		{spec: "1/12s", burst: 1, want: Quota{12 * time.Second, 1}, enabled: true},
		{spec: "5/1m", burst: 1, want: Quota{12 * time.Second, 1}, enabled: true},
		{spec: "5/m", burst: 5, want: Quota{12 * time.Second, 5}, enabled: true},
		{spec: "10/1h30m", burst: 2, want: Quota{9 * time.Minute, 2}, enabled: true},
		{spec: "2/.5s", burst: 1, want: Quota{250 * time.Millisecond, 1}, enabled: true},
		{spec: " 1/s ", burst: 1, want: Quota{time.Second, 1}, enabled: true},
		{spec: "1/µs", burst: 1, want: Quota{time.Microsecond, 1}, enabled: true},
		{spec: "off", burst: 5},
		{spec: "OFF", burst: 0}, // burst does not matter when disabled
		{spec: "0/s", burst: 1, wantErr: true},
		{spec: "-1/s", burst: 1, wantErr: true},
		{spec: "+1/s", burst: 1, wantErr: true},
		{spec: "1/0s", burst: 1, wantErr: true},
		{spec: "1/-1s", burst: 1, wantErr: true},
		{spec: "1/s", burst: 0, wantErr: true},
		{spec: "1/s", burst: -1, wantErr: true},
		{spec: "x", burst: 1, wantErr: true},
		{spec: "", burst: 1, wantErr: true},
		{spec: "1", burst: 1, wantErr: true},
		{spec: "1/", burst: 1, wantErr: true},
		{spec: "/s", burst: 1, wantErr: true},
		{spec: "1/x", burst: 1, wantErr: true},
		{spec: "1/1", burst: 1, wantErr: true},
		{spec: "1.5/s", burst: 1, wantErr: true},
		{spec: "2/1ns", burst: 1, wantErr: true}, // below 1ns per request
		{spec: "99999999999999999999/s", burst: 1, wantErr: true},
	} {
		q, enabled, err := ParseQuota(tc.spec, tc.burst)
		if tc.wantErr {
			if err == nil {
				t.Errorf("ParseQuota(%q, %d) = %+v, %v; want error", tc.spec, tc.burst, q, enabled)
			}
			continue
		}
		if err != nil || q != tc.want || enabled != tc.enabled {
			t.Errorf("ParseQuota(%q, %d) = %+v, %v, %v; want %+v, %v", tc.spec, tc.burst, q, enabled, err, tc.want, tc.enabled)
		}
	}
}

func TestDefaultsMatchContract(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		burst int
		want  Quota
	}{
		{DefaultAPISpec, DefaultAPIBurst, apiQuota},
		{DefaultLaunchSpec, DefaultLaunchBurst, launchQuota},
	} {
		q, enabled, err := ParseQuota(tc.spec, tc.burst)
		if err != nil || !enabled || q != tc.want {
			t.Errorf("ParseQuota(%q, %d) = %+v, %v, %v; want %+v", tc.spec, tc.burst, q, enabled, err, tc.want)
		}
	}
}
