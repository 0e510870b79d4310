#!/usr/bin/env bash
# Remove what install.sh placed for the current user (launcher, AppStream file, icons,
# the ~/.local/bin/ntkviz link when it points at an ntkviz bundle).
#   --purge   also delete ntkviz's settings ($XDG_CONFIG_HOME/ntkviz) and caches ($XDG_CACHE_HOME/ntkviz)
# The bundle folder itself is not touched: delete it by hand.
set -euo pipefail
APP_ID="io.github.ntkviz.Ntkviz"
DATA="${XDG_DATA_HOME:-$HOME/.local/share}"
BIN="${NTKVIZ_BIN_DIR:-$HOME/.local/bin}"
purge=0
for arg in "$@"; do
  case "$arg" in
    --purge) purge=1 ;;
    -h|--help) sed -n '2,6p' "$0"; exit 0 ;;
    *) echo "uninstall.sh: unknown option $arg (use --purge or --help)" >&2; exit 2 ;;
  esac
done

removed=0
for f in "$DATA/applications/$APP_ID.desktop" "$DATA/metainfo/$APP_ID.metainfo.xml" \
         "$DATA"/icons/hicolor/*/apps/"$APP_ID".png "$DATA"/icons/hicolor/*/apps/"$APP_ID".svg; do
  if [ -e "$f" ]; then rm -f "$f"; echo "uninstall.sh: removed $f"; removed=$((removed + 1)); fi
done
if [ -L "$BIN/ntkviz" ]; then
  target="$(readlink "$BIN/ntkviz")"
  if [ -f "$(dirname "$target")/share/applications/$APP_ID.desktop" ] || [ ! -e "$target" ]; then
    rm -f "$BIN/ntkviz"; echo "uninstall.sh: removed $BIN/ntkviz"; removed=$((removed + 1))
  fi
fi
if [ "$purge" = 1 ]; then
  for d in "${XDG_CONFIG_HOME:-$HOME/.config}/ntkviz" "${XDG_CACHE_HOME:-$HOME/.cache}/ntkviz"; do
    if [ -e "$d" ]; then rm -rf "$d"; echo "uninstall.sh: removed $d"; removed=$((removed + 1)); fi
  done
fi
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$DATA/applications" 2>/dev/null || true
command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q -t -f "$DATA/icons/hicolor" 2>/dev/null || true
echo "uninstall.sh: $removed item(s) removed"
