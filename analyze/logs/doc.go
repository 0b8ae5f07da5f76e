// Package logs reads logs and other text files of a bundle with RE2
// regular expressions: the log line parser (Line, ParseLine: RisingWave's
// text and JSON formats, with or without kubectl's timestamp prefix) and
// the Scanner that runs many rules' Queries over multi-gigabyte files in
// one pass each, keeping the matches as evidence.Rows.
//
// logs imports evidence and bundle only.
package logs
