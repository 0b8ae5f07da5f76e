package collect

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rwdiag/rwdiag/bundle"
)

// appendPsqlCSVRow appends one record as `psql --csv` prints it: fields
// separated by commas, a field quoted (with its double quotes doubled) when
// it holds a comma, a double quote, a carriage return or a line feed, or is
// exactly `\.`; the record ended by a line feed. NULL is printed as an empty
// field, like the empty string.
func appendPsqlCSVRow(b *bytes.Buffer, fields []string) {
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		if strings.ContainsAny(f, ",\"\r\n") || f == `\.` {
			b.WriteByte('"')
			b.WriteString(strings.ReplaceAll(f, `"`, `""`))
			b.WriteByte('"')
		} else {
			b.WriteString(f)
		}
	}
	b.WriteByte('\n')
}

// PsqlCSV redacts a sql/<relation>.csv file, `psql --csv` output, value by
// value as SQLRow does, and writes it back in the same format: what holds
// nothing to redact is unchanged, byte for byte. A file that is not psql CSV
// is redacted as text, and the error says so.
func (r *Redactor) PsqlCSV(relation string, data []byte) ([]byte, int, error) {
	if r == nil {
		return data, 0, nil
	}
	records, ends, err := parsePsqlCSV(data)
	if err != nil {
		out, n := r.Text(bundle.SQLPath(relation), data)
		return out, n, fmt.Errorf("%s: %w; redacted as text", bundle.SQLPath(relation), err)
	}
	var b bytes.Buffer
	b.Grow(len(data))
	n, start := 0, 0
	for i, rec := range records {
		out, c := rec, 0
		if i > 0 {
			out, c = r.SQLRow(relation, records[0], rec)
		}
		if c == 0 && slices.Equal(out, rec) {
			b.Write(data[start:ends[i]]) // unchanged: the very bytes
		} else {
			appendPsqlCSVRow(&b, out)
		}
		n += c
		start = ends[i]
	}
	return b.Bytes(), n, nil
}

// errCSVSyntax says a file is not in the CSV shape psql writes.
var errCSVSyntax = errors.New("not psql CSV")

// parsePsqlCSV splits psql --csv output into records, the inverse of
// appendPsqlCSVRow: quoted fields keep their carriage returns and line feeds
// as they are (encoding/csv would turn \r\n into \n). ends[i] is where
// record i ends in data, its line feed included.
func parsePsqlCSV(data []byte) (records [][]string, ends []int, err error) {
	var rec []string
	var field strings.Builder
	i := 0
	for i < len(data) {
		// one field
		field.Reset()
		if data[i] == '"' {
			i++
			for {
				if i >= len(data) {
					return records, ends, errCSVSyntax
				}
				c := data[i]
				i++
				if c == '"' {
					if i < len(data) && data[i] == '"' {
						field.WriteByte('"')
						i++
						continue
					}
					break
				}
				field.WriteByte(c)
			}
			if i < len(data) && data[i] != ',' && data[i] != '\n' {
				return records, ends, errCSVSyntax
			}
		} else {
			for i < len(data) && data[i] != ',' && data[i] != '\n' {
				if data[i] == '"' {
					return records, ends, errCSVSyntax
				}
				field.WriteByte(data[i])
				i++
			}
		}
		rec = append(rec, field.String())
		if i >= len(data) {
			return append(records, rec), append(ends, i), errCSVSyntax // no final line feed
		}
		if data[i] == '\n' {
			records = append(records, rec)
			ends = append(ends, i+1)
			rec = nil
		}
		i++
	}
	return records, ends, nil
}
