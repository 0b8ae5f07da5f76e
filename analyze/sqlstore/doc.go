// Package sqlstore answers SQL over the rw_catalog CSV dumps of a bundle:
// the Store loads each sql/<relation>.csv into an embedded, read-only
// SQLite database (schema rw_catalog) and Query returns evidence.Rows.
// Check rejects statements that are not read-only at rule load time.
//
// sqlstore imports evidence only.
package sqlstore
