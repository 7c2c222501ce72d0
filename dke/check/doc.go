// Package check resolves and type-checks a parsed DKE Python source: names
// and imports, kinds and attributes, types of every expression, verbs and
// their cells, the termination rules (no recursion — direct, mutual or
// across modules — no procedure returning a value, no `.append`, no
// unbounded loop), @rule safety and stratification, computed fields, and
// what a `run` program may not declare.
//
// It reports every error it can find as a diag.Diagnostic of class
// type_error (or parse_error for the structural refusals of a program),
// with a mechanical fix where one edit corrects the source.
//
// What is already stored — other modules' scripts, kinds and rules — comes
// from an Env, so the DKE service plugs in the lorestore and tests use a
// MapEnv. Check also returns the module's ModuleInfo, the summary a store
// keeps so later modules can be checked against it.
//
// It does not run anything: evaluation is package eval's.
package check
