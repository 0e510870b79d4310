#!/usr/bin/env bash
# Install the ntkviz launcher for the current user (no root needed).
#
# Run from the unpacked bundle folder (ntkviz-<version>-linux-x86_64/install.sh). It places
#   $XDG_DATA_HOME/applications/io.github.ntkviz.Ntkviz.desktop   (Exec= this folder's ./ntkviz)
#   $XDG_DATA_HOME/metainfo/io.github.ntkviz.Ntkviz.metainfo.xml
#   $XDG_DATA_HOME/icons/hicolor/{48x48,128x128,256x256,scalable}/apps/io.github.ntkviz.Ntkviz.*
#   ~/.local/bin/ntkviz -> this folder's ./ntkviz   (unless that name is already taken)
# with XDG_DATA_HOME defaulting to ~/.local/share. The bundle itself stays where it is:
# move it, and run install.sh again. Undo with uninstall.sh.
set -euo pipefail
APP_ID="io.github.ntkviz.Ntkviz"
BUNDLE="$(cd "$(dirname "$0")" && pwd -P)"
EXE="$BUNDLE/ntkviz"
DATA="${XDG_DATA_HOME:-$HOME/.local/share}"
BIN="${NTKVIZ_BIN_DIR:-$HOME/.local/bin}"

if [ ! -x "$EXE" ] || [ ! -f "$BUNDLE/share/applications/$APP_ID.desktop" ]; then
  echo "install.sh: run me from an unpacked ntkviz bundle (no executable $EXE)" >&2
  exit 1
fi
# The desktop-entry Exec key reserves these characters; refuse rather than write a broken entry.
case "$EXE" in
  *[\"\`\$\\%]*) echo "install.sh: the bundle path must not contain \" \` \$ \\ or %: $EXE" >&2; exit 1 ;;
esac

mkdir -p "$DATA/applications" "$DATA/metainfo"
sed -e "s|^Exec=.*|Exec=\"$EXE\"|" -e "s|^TryExec=.*|TryExec=$EXE|" \
  "$BUNDLE/share/applications/$APP_ID.desktop" > "$DATA/applications/$APP_ID.desktop"
chmod 644 "$DATA/applications/$APP_ID.desktop"
install -m 644 "$BUNDLE/share/metainfo/$APP_ID.metainfo.xml" "$DATA/metainfo/"
for icon in "$BUNDLE"/share/icons/hicolor/*/apps/"$APP_ID".*; do
  rel="${icon#"$BUNDLE/share/"}"
  install -D -m 644 "$icon" "$DATA/$rel"
done

if [ -L "$BIN/ntkviz" ] || [ ! -e "$BIN/ntkviz" ]; then
  mkdir -p "$BIN"
  ln -sfn "$EXE" "$BIN/ntkviz"
  echo "install.sh: command    $BIN/ntkviz"
else
  echo "install.sh: $BIN/ntkviz exists and is not a link; left it alone" >&2
fi

# Refresh the menu and icon caches when the tools exist (desktops also notice new files).
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$DATA/applications" || true
command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q -t -f "$DATA/icons/hicolor" || true

echo "install.sh: launcher   $DATA/applications/$APP_ID.desktop -> $EXE"
echo "install.sh: icons      $DATA/icons/hicolor/*/apps/$APP_ID.*"
