// Package analyze reads a bundle offline and applies rule files to it.
//
// Evidence is queried in the language its users already know: PromQL over
// metrics scrapes, SQL over the system-table dumps (in an embedded SQLite),
// gjson paths over Kubernetes objects, and RE2 regular expressions over logs
// and other text. A rule's condition is an expr expression over its named
// signals. The bundle is read in one streaming pass; the rules are evaluated
// afterwards over what the pass gathered. The results (Report, Timeline,
// Diff) are rendered for people by package analyze/report.
//
// analyze imports bundle, never collect, and never its own report package.
package analyze
