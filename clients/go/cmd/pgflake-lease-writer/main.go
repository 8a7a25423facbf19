// pgflake-lease-writer makes IDs under a lease and inserts them: the Go
// lease holder of the nemesis (tests/servers/nemesis/holders.py), with the
// command line of tests/servers/lease_writer.py (see
// internal/leasewriter).
package main

import (
	"os"

	"pg-flake.invalid/pgflake/internal/leasewriter"
)

func main() { os.Exit(leasewriter.Run(os.Args[1:], os.Stdout, os.Stderr)) }
