package pgflake

// Version is this package's version: the project's one version (Go keeps
// no version in go.mod; a release would tag v0.5.0 for the module in clients/go/).
const Version = "0.5.0"
