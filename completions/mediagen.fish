# fish completion for mediagen
# Install: mediagen completion fish > ~/.config/fish/completions/mediagen.fish
# (`npx mediagen completion fish > …` when mediagen is only reachable through npx).
# Candidates come from `mediagen __complete words` (value<TAB>description); ids of models, voices,
# looks and folders come from the current target (cached for 10 minutes). Both `mediagen <TAB>` and
# `npx mediagen <TAB>` complete.

# The mediagen that printed this script (filled in by `mediagen completion fish`; empty in the file).
set -g __mediagen_bin ""
set -g __mediagen_node ""

# Runs mediagen: the one on PATH, else the one that printed this script, else npx's (a project's).
function __mediagen_run
    if command -q mediagen
        command mediagen $argv
    else if test -n "$__mediagen_bin"; and test -f "$__mediagen_bin"
        if test -n "$__mediagen_node"; and test -x "$__mediagen_node"
            $__mediagen_node $__mediagen_bin $argv
        else
            node $__mediagen_bin $argv
        end
    else
        npx --no-install mediagen $argv
    end
end

function __mediagen_complete
    set -l typed (commandline -opc)[2..-1] (commandline -ct)
    __mediagen_run __complete words -- $typed 2>/dev/null
end

function __mediagen_after_npx
    set -l words (commandline -opc)
    test (count $words) -ge 2; and test "$words[2]" = mediagen
end

function __mediagen_complete_npx
    set -l typed (commandline -opc)[3..-1] (commandline -ct)
    __mediagen_run __complete words -- $typed 2>/dev/null
end

complete -c mediagen -f -a '(__mediagen_complete)'
complete -c npx -n __mediagen_after_npx -f -a '(__mediagen_complete_npx)'
