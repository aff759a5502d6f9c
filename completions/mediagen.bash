# bash completion for mediagen
# Install: mediagen completion bash > ~/.local/share/bash-completion/completions/mediagen
# or add `source <(mediagen completion bash)` to ~/.bashrc (`source <(npx mediagen completion bash)`
# when mediagen is only reachable through npx).
# Candidates come from `mediagen __complete words`, so they follow the installed version; model,
# voice, look and folder ids come from the current target (cached for 10 minutes). Both
# `mediagen <TAB>` and `npx mediagen <TAB>` complete.

# The mediagen that printed this script (filled in by `mediagen completion bash`; empty in the file).
__mediagen_bin=""
__mediagen_node=""

# Runs mediagen: the one on PATH, else the one that printed this script, else npx's (a project's).
__mediagen_run() {
  if command -v mediagen >/dev/null 2>&1; then
    command mediagen "$@"
  elif [[ -n "$__mediagen_bin" && -f "$__mediagen_bin" ]]; then
    if [[ -n "$__mediagen_node" && -x "$__mediagen_node" ]]; then
      "$__mediagen_node" "$__mediagen_bin" "$@"
    else
      node "$__mediagen_bin" "$@"
    fi
  else
    npx --no-install mediagen "$@"
  fi
}

# Completes the words of the line from COMP_WORDS[$1] (the first word after `mediagen`).
__mediagen_complete_from() {
  local first=$1 cur
  cur="${COMP_WORDS[COMP_CWORD]}"
  local -a words=("${COMP_WORDS[@]:first:COMP_CWORD-first+1}")
  local IFS=$'\n'
  local candidates
  candidates=$(__mediagen_run __complete words -- "${words[@]}" 2>/dev/null | cut -f1)
  if [[ -z "$candidates" ]]; then
    COMPREPLY=()
    return 0
  fi
  COMPREPLY=($(compgen -W "$candidates" -- "$cur"))
}

_mediagen() {
  __mediagen_complete_from 1
}

# `npx mediagen …`: the words after `npx mediagen`; other npx commands get file names.
_mediagen_npx() {
  if ((COMP_CWORD >= 2)) && [[ "${COMP_WORDS[1]}" == "mediagen" ]]; then
    __mediagen_complete_from 2
  else
    COMPREPLY=()
  fi
}

# -o default: when mediagen offers nothing (a path argument), readline completes file names.
complete -o default -F _mediagen mediagen
# npx's own completion, if one is installed, is left alone.
complete -p npx >/dev/null 2>&1 || complete -o default -F _mediagen_npx npx
