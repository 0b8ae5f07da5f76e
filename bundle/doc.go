// Package bundle owns the rwdiag bundle format: its layout, its manifest, and
// a safe streaming reader and a writer for it.
//
// A bundle is a tree of files, each of which is what a standard tool prints
// (kubectl, curl, psql --csv), so a bundle can be made by hand. The tree may be
// a plain directory, or a tar archive that is uncompressed, zstd-compressed or
// gzip-compressed; the reader tells them apart by their magic bytes. In an
// archive the tree may sit under one top-level directory.
//
// The reader hands entries out in one pass, in the order the archive holds
// them, without extracting anything to disk. Nothing it reads is trusted:
// entries with absolute paths, ".." components, links or devices are refused,
// so is a second copy of a path (the first copy is the one every caller
// reads), decompressed bytes are counted against per-entry and total limits, and a
// damaged archive yields every entry read before the damage followed by a
// *DamageError naming the entry and offset.
//
// Verify checks a bundle against the sizes and SHA-256 sums its manifest
// records, in one streaming pass; Extract writes a bundle to a directory
// through an os.Root, so no entry can land outside it, leaving runs of zeros
// as holes so that sparse entries stay sparse. A Writer renames a finished
// archive over its destination, or writes in place to a destination that is
// a device, FIFO or symbolic link.
//
// The Writer compresses a tar.zst as independent zstd frames of 4 MiB, which
// the reader decodes on every core and hands to the tar reader in order; a
// stream of one frame (`tar | zstd`) is read by the streaming decoder.
//
// This package imports only the standard library and compression packages.
// See docs/bundle-format.md for the format itself.
package bundle
