// Package claims is the DKE claim model: values at Kind.subject.attribute
// cells, each from a source at a logical instant, and the operations of the
// DKE contract over them — remember (idempotent per source and value),
// update (always a new claim), forget (every claim at the cell), the range
// forget (older versions, never the value in force) and current.
//
// It is storage-agnostic. A Store hands out a read-only Snapshot and takes
// back a ChangeSet of added and removed claims, so binding it to the
// lorestore is one adapter; Mem is the in-memory Store the tests use. A Tx
// is the working view an evaluator writes through: a snapshot plus the
// changes made since, which the caller commits.
package claims
