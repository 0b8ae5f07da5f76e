// Package logs reads logs and other text files of a bundle with RE2
// regular expressions. It owns:
//
//   - the line parser, ParseLine and Line: RisingWave's text ("full"),
//     pretty (v1.0's default) and JSON (cloud) formats, with or without
//     `kubectl logs --timestamps`' prefix, pasted lines (a level with no
//     timestamp, leading spaces, docker-compose "name | " prefixes), Java
//     connector log4j lines and Rust panics; a Line has the time, level,
//     target, message, and its Fields and Spans;
//   - events, Event, Events and ParseEvent: a head line and the
//     continuation lines that belong to it (an error report's backtrace,
//     the pretty format's "at" and "in" lines, a panic's message and
//     backtrace, a JSON object printed over several lines), at most 64 KiB.
//     A Rust panic, which RisingWave's panic hook prints to stderr in every
//     version, is an ERROR event whose message is the panic message and
//     whose time is that of the nearest line before it that has one (or of
//     its own kubectl prefix);
//   - the Scanner, which runs many rules' Queries over multi-gigabyte files
//     in one pass each, a block at a time with literal prefilters, and keeps
//     the matches as evidence.Rows. In a container log a query matches the
//     lines of an event: a matching continuation line gives its event's row
//     (time, level, target, message) with its own line number and text, and
//     an event counts once however many of its lines match;
//   - FileStats (Scanner.Files), for every file Scan was given whatever its
//     queries: its lines; of a log's first SampleLines non-empty lines, how
//     many parsed as log events (Parsed == 0 with Sampled > 0: a format
//     nothing here reads, which a coverage report should say rather than
//     drop the file); the first time (among the first FirstLines lines) and
//     the last (of the last line that has one, from the blocks' tails, not
//     by parsing every line); and whether it is JSON.
//
// What the text format leaves ambiguous is guessed and documented where it
// is guessed: where a message ends and its " k=v" fields begin (Fields),
// a thread name column (standalone), a level without a timestamp.
//
// logs imports evidence and bundle only.
package logs
