module github.com/klauspost/cpuid/v2

go 1.22

require golang.org/x/sys v0.50.0
