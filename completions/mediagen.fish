# fish completion for mediagen
# Install: mediagen completion fish > ~/.config/fish/completions/mediagen.fish
# Candidates come from `mediagen __complete words` (value<TAB>description); ids of models, voices,
# looks and folders come from the current target (cached for 10 minutes).
function __mediagen_complete
    set -l typed (commandline -opc)[2..-1] (commandline -ct)
    command mediagen __complete words -- $typed 2>/dev/null
end
complete -c mediagen -f -a '(__mediagen_complete)'
