package cli

import (
	"strings"

	ucli "github.com/urfave/cli/v2"
)

// interspersed moves the flags that follow a command's arguments in front of
// them, so `rwdiag analyze BUNDLE --format json` works as users expect;
// urfave/cli v2 stops reading flags at the first argument. Everything after
// "--" is left alone.
func interspersed(app *ucli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	flags, cmds := app.Flags, app.Commands
	var globals []string
	i := 1
	// Walk down the command path, keeping flags in place.
	for i < len(args) {
		tok := args[i]
		if tok == "--" {
			return append(withGlobals(out, globals), args[i:]...)
		}
		if isFlag(tok) && len(out) > 1 && !hasFlag(flags, tok) && hasFlag(app.Flags, tok) {
			n := max(flagWidth(app.Flags, tok, args[i:]), 1)
			globals = append(globals, args[i:i+n]...)
			i += n
			continue
		}
		if isFlag(tok) {
			n := flagWidth(flags, tok, args[i:])
			out = append(out, args[i:i+n]...)
			i += n
			continue
		}
		cmd := findCommand(cmds, tok)
		if cmd == nil {
			break
		}
		out = append(out, tok)
		flags, cmds = cmd.Flags, cmd.Subcommands
		i++
	}
	// The leaf command's arguments: flags first, then positionals. A flag
	// that wants a value but ends the line stays last, so the error says so.
	// A global flag the command does not take itself (--max-total-bytes
	// after `rules test`, --version after a command) moves before the
	// command, where urfave reads global flags.
	var positional, dangling []string
	leaf := flags
	for i < len(args) {
		tok := args[i]
		if tok == "--" {
			positional = append(positional, args[i:]...)
			break
		}
		if isFlag(tok) && !hasFlag(leaf, tok) && hasFlag(app.Flags, tok) {
			n := max(flagWidth(app.Flags, tok, args[i:]), 1)
			globals = append(globals, args[i:i+n]...)
			i += n
			continue
		}
		if isFlag(tok) {
			n := flagWidth(flags, tok, args[i:])
			if n == 0 {
				dangling = append(dangling, tok)
				i++
				continue
			}
			out = append(out, args[i:i+n]...)
			i += n
			continue
		}
		positional = append(positional, tok)
		i++
	}
	return append(append(withGlobals(out, globals), positional...), dangling...)
}

// withGlobals puts the global flags found after the command right after
// the program name.
func withGlobals(out, globals []string) []string {
	if len(globals) == 0 {
		return out
	}
	return append(append([]string{out[0]}, globals...), out[1:]...)
}

// hasFlag reports whether tok ("--name", "-n", "--name=v") names one of flags.
func hasFlag(flags []ucli.Flag, tok string) bool {
	name, _, _ := strings.Cut(strings.TrimLeft(tok, "-"), "=")
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}

func isFlag(tok string) bool { return len(tok) > 1 && tok[0] == '-' }

// flagWidth is how many tokens a flag takes: 1 for a boolean or "--f=v",
// 2 for a flag that takes a value, 0 for one that wants a value and has
// none, 1 for an unknown flag (left for urfave to report).
func flagWidth(flags []ucli.Flag, tok string, rest []string) int {
	name := strings.TrimLeft(tok, "-")
	if strings.Contains(name, "=") {
		return 1
	}
	if name == "h" || name == "help" {
		return 1
	}
	for _, f := range flags {
		for _, n := range f.Names() {
			if n != name {
				continue
			}
			if _, isBool := f.(*ucli.BoolFlag); isBool {
				return 1
			}
			if len(rest) > 1 {
				return 2
			}
			return 0
		}
	}
	return 1
}

func findCommand(cmds []*ucli.Command, name string) *ucli.Command {
	for _, c := range cmds {
		if c.Name == name {
			return c
		}
		for _, a := range c.Aliases {
			if a == name {
				return c
			}
		}
	}
	return nil
}
