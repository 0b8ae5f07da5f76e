// Package sqlstore answers SQL over the rw_catalog CSV dumps of a bundle:
// the Store loads each sql/<relation>.csv into an embedded, read-only
// SQLite database (schema rw_catalog) and Query returns evidence.Rows.
// Check rejects statements that are not read-only at rule load time.
//
// Nothing a bundle or a query holds may exhaust the machine, so a Store has
// Limits (DefaultLimits unless NewStoreLimits is given others):
//
//   - Loading streams. A CSV field longer than MaxFieldBytes (1 MiB, as log
//     lines are cut) is cut, not dropped: its row is kept, so counts and
//     joins stay right, and the value keeps its first 1 MiB (never half a
//     UTF-8 character) followed by "…[cut by rwdiag: field longer than
//     1 MiB]"; the rest of the field is read and thrown away without being
//     held. A row longer than MaxRecordBytes (16 MiB) is cut the same way at
//     the field that crosses it, its later fields NULL. Past MaxRows rows
//     (5 million) or MaxFileBytes bytes loaded (512 MiB, as a
//     kubernetes/*.json file; what cut fields drop does not count) of one
//     dump, or MaxTotalBytes (2 GiB) over all dumps, the rest is not loaded
//     and the table is Partial. LoadCSV then returns, with the
//     table loaded, an error naming the file and line that wraps ErrLimit;
//     TableInfo counts the cut values (Cut, CutLine).
//   - Every query runs with a time limit (QueryTimeout, 10 s, through
//     context cancellation, which SQLite's progress handler turns into an
//     interrupt), SQLite's length limit (MaxValueBytes, 64 MiB: no string or
//     blob longer is built), and a count of the rows (MaxResultRows, 1
//     million) and bytes (MaxResultBytes, 256 MiB) it returns. A query
//     stopped at one fails with a *LimitError naming the limit, which wraps
//     ErrLimit.
//
// sqlstore imports evidence only.
package sqlstore
