package provider

import "testing"

func TestCredentialHeader(t *testing.T) {
	tests := map[string]bool{
		"Authorization": true, "proxy-authorization": true, "Cookie": true, "X-Api-Key": true, "X-Goog-Api-Key": true,
		"X-Auth-Token": true, "X-Session-Id": true, "X-Client-Secret": true, "Private-Token": true, "X-Amz-Security-Token": true,
		"X-Trace": false, "Accept": false, "Idempotency-Key": false, "Content-Type": false, "X-Request-Id": false,
	}
	for name, want := range tests {
		if got := credentialHeader(name); got != want {
			t.Errorf("credentialHeader(%q) = %v, want %v", name, got, want)
		}
	}
}
