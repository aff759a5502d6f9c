#!/usr/bin/env bash
# Runs a command as on a fresh machine: the system ffmpeg, ffprobe and espeak-ng are hidden from
# PATH, so mediagen falls back to its npm copies (@ffmpeg-installer/ffmpeg 4.1,
# @ffprobe-installer/ffprobe, the WASM espeak-ng). Every PATH directory that holds one of them is
# replaced by a directory of symlinks to everything else in it; node, npm, python3 stay reachable.
#   scripts/without-system-media.sh npm test
set -euo pipefail
if [ "$#" -eq 0 ]; then
  echo "usage: $0 command [args...]" >&2
  exit 64
fi

hidden=(ffmpeg ffprobe espeak-ng espeak)
shadow_root="$(mktemp -d "${TMPDIR:-/tmp}/mediagen-no-media.XXXXXX")"
trap 'rm -rf "$shadow_root"' EXIT

holds_hidden() {
  local dir="$1" h
  for h in "${hidden[@]}"; do [ -e "$dir/$h" ] && return 0; done
  return 1
}

new_path=""
index=0
IFS=':' read -r -a dirs <<<"$PATH"
for dir in "${dirs[@]}"; do
  [ -n "$dir" ] && [ -d "$dir" ] || continue
  if holds_hidden "$dir"; then
    index=$((index + 1))
    shadow="$shadow_root/$index"
    mkdir "$shadow"
    # One ln for the whole directory (thousands of entries in /usr/bin), then the hidden ones go.
    shopt -s nullglob dotglob
    entries=("$dir"/*)
    shopt -u nullglob dotglob
    [ "${#entries[@]}" -eq 0 ] || ln -s -t "$shadow" "${entries[@]}"
    for h in "${hidden[@]}"; do rm -f "$shadow/$h"; done
    dir="$shadow"
  fi
  new_path="${new_path:+$new_path:}$dir"
done

for h in "${hidden[@]}"; do
  if PATH="$new_path" command -v "$h" >/dev/null 2>&1; then
    echo "without-system-media: could not hide $h ($(PATH="$new_path" command -v "$h"))" >&2
    exit 1
  fi
done
command -v node >/dev/null || { echo "without-system-media: node not on PATH" >&2; exit 1; }

echo "without-system-media: ffmpeg, ffprobe, espeak-ng hidden from PATH" >&2
# Not exec: the trap removes the shadow directories when the command ends.
env -u MEDIAGEN_FFMPEG -u MEDIAGEN_FFPROBE -u MEDIAGEN_ESPEAK PATH="$new_path" "$@"
