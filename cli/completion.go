package cli

import (
	"fmt"

	ucli "github.com/urfave/cli/v2"
)

func completionCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script: bash, zsh or fish",
		UsageText: "rwdiag completion bash|zsh|fish",
		Description: "Prints a script that completes rwdiag's commands and flags in the shell.\n\n" +
			"Examples:\n" +
			"   rwdiag completion bash > /etc/bash_completion.d/rwdiag\n" +
			"   source <(rwdiag completion bash)\n" +
			"   rwdiag completion zsh > \"${fpath[1]}/_rwdiag\"\n" +
			"   rwdiag completion fish > ~/.config/fish/completions/rwdiag.fish",
		Action: func(c *ucli.Context) error {
			args, err := exactArgs(c, "SHELL")
			if err != nil {
				return err
			}
			w := c.App.Writer
			switch args[0] {
			case "bash":
				_, err = fmt.Fprint(w, bashCompletion)
			case "zsh":
				_, err = fmt.Fprint(w, zshCompletion)
			case "fish":
				// Not urfave's ToFishCompletion: it recurses without end once
				// its shared help command has been set up by another app.
				_, err = fmt.Fprint(w, fishCompletion)
			default:
				return usageError(c, "unknown shell %q (want bash, zsh or fish)%s", args[0], didYouMean(args[0], []string{"bash", "zsh", "fish"}))
			}
			return err
		},
	}
}

// The scripts ask rwdiag itself (urfave/cli's --generate-bash-completion)
// for the words that may follow, as urfave/cli's own autocomplete scripts do.
const bashCompletion = `# bash completion for rwdiag
_rwdiag_complete() {
  local cur opts
  COMPREPLY=()
  cur="${COMP_WORDS[COMP_CWORD]}"
  if [[ "$cur" == "-"* ]]; then
    opts=$("${COMP_WORDS[0]}" "${COMP_WORDS[@]:1:$COMP_CWORD-1}" "$cur" --generate-bash-completion 2>/dev/null)
  else
    opts=$("${COMP_WORDS[0]}" "${COMP_WORDS[@]:1:$COMP_CWORD-1}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=($(compgen -W "${opts}" -- "${cur}"))
  [[ ${#COMPREPLY[@]} -eq 0 ]] && COMPREPLY=($(compgen -f -- "${cur}"))
  return 0
}
complete -o filenames -F _rwdiag_complete rwdiag kubectl-rwdiag
`

const zshCompletion = `#compdef rwdiag
_rwdiag() {
  local -a opts
  local cur=${words[-1]}
  if [[ "$cur" == "-"* ]]; then
    opts=("${(@f)$(${words[1]} ${words[@]:1:#words[@]-2} ${cur} --generate-bash-completion 2>/dev/null)}")
  else
    opts=("${(@f)$(${words[1]} ${words[@]:1:#words[@]-2} --generate-bash-completion 2>/dev/null)}")
  fi
  if [[ -n "${opts[1]}" ]]; then
    _describe 'values' opts
  fi
  _files
}
compdef _rwdiag rwdiag
`

const fishCompletion = `# fish completion for rwdiag
function __rwdiag_complete
    set -l args (commandline -opc)
    set -l cur (commandline -ct)
    if string match -q -- '-*' $cur
        $args[1] $args[2..-1] $cur --generate-bash-completion 2>/dev/null
    else
        $args[1] $args[2..-1] --generate-bash-completion 2>/dev/null
    end
end
complete -c rwdiag -a '(__rwdiag_complete)'
`
