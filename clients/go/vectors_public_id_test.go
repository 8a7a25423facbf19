package pgflake

import (
	"encoding/base64"
	"testing"
)

func TestPublicIdVectors(t *testing.T) {
	n := 0
	for _, v := range load(t, "publicid") {
		name := v.Str("name")
		if v.Str("kind") == "bad_key" {
			_, err := NewPublicIdKey(mustHex(t, v.Str("key_hex")))
			wantState(t, v, err)
			continue
		}
		key, err := PublicIdKeyFromBase64(v.Str("key_base64"))
		if err != nil {
			t.Fatalf("%s: key: %v", name, err)
		}
		if v.Str("kind") == "out_of_range" {
			_, err := DistributedIdFromNumeric(v.Str("input"))
			wantState(t, v, err)
			continue
		}
		publicID, err := ParseDistributedId128(v.Str("public_id"))
		if err != nil {
			t.Fatal(err)
		}
		if v.Str("kind") == "encrypt" {
			var got [16]byte
			switch v.Str("input_type") {
			case "bigint":
				got, err = key.EncryptBigint(v.Int64("input"))
			case "distributed_id":
				var id DistributedId
				id, err = ParseDistributedId(v.Str("input"))
				got = key.EncryptDistributedId(id)
			case "uuid":
				var u DistributedId128
				u, err = ParseDistributedId128(v.Str("input"))
				got = key.EncryptUUID(u)
			}
			if err != nil || got != publicID {
				t.Errorf("%s: encrypt = %v, %v", name, DistributedId128(got), err)
			}
			if AlphanumericEncodeUUID(got) != v.Str("public_alphanumeric") {
				t.Errorf("%s: alphanumeric %s", name, AlphanumericEncodeUUID(got))
			}
		}
		d := v.Obj("decrypt")
		big, ok := key.DecryptBigint(publicID)
		if ok != d.Has("bigint") || (ok && big != d.Int64("bigint")) {
			t.Errorf("%s: DecryptBigint = %d, %v", name, big, ok)
		}
		did, ok := key.DecryptDistributedId(publicID)
		if ok != d.Has("distributed_id") || (ok && did.String() != d.Str("distributed_id")) {
			t.Errorf("%s: DecryptDistributedId = %v, %v", name, did, ok)
		}
		if u := DistributedId128(key.DecryptUUID(publicID)); u.String() != d.Str("uuid") {
			t.Errorf("%s: DecryptUUID = %v", name, u)
		}
		n++
	}
	counted(t, "publicid", n, 20)
	for _, bad := range []string{"AAAA", "AAAAAAAAAAAAAAAAAAAAAA==x", "AAAAAAAAAAAAAAAAAAAAAB=="} {
		if _, err := PublicIdKeyFromBase64(bad); SQLState(err) != "22023" {
			t.Errorf("key %q: %v", bad, err)
		}
	}
	if _, err := PublicIdKeyFromBase64(base64.StdEncoding.EncodeToString(make([]byte, 24))); err != nil {
		t.Errorf("AES-192 key: %v", err)
	}
}
