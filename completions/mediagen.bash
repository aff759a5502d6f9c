# bash completion for mediagen
# Install: mediagen completion bash > ~/.local/share/bash-completion/completions/mediagen
# or add `source <(mediagen completion bash)` to ~/.bashrc.
# Candidates come from `mediagen __complete words`, so they follow the installed version; model,
# voice, look and folder ids come from the current target (cached for 10 minutes).
_mediagen() {
  local cur words cword
  cur="${COMP_WORDS[COMP_CWORD]}"
  words=("${COMP_WORDS[@]:1:COMP_CWORD}")
  local IFS=$'\n'
  local candidates
  candidates=$(command mediagen __complete words -- "${words[@]}" 2>/dev/null | cut -f1)
  if [[ -z "$candidates" ]]; then
    COMPREPLY=()
    return 0
  fi
  COMPREPLY=($(compgen -W "$candidates" -- "$cur"))
}
# -o default: when mediagen offers nothing (a path argument), readline completes file names.
complete -o default -F _mediagen mediagen
