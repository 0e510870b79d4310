#!/usr/bin/env bash
# Build the ntkviz one-folder Linux bundle with PyInstaller and pack it as a .tar.gz.
#
#   packaging/build_linux.sh                 # build venv in build/venv (created on first use)
#   NTKVIZ_BUILD_VENV=.venv packaging/build_linux.sh   # use the project venv instead
#
# Output (git-ignored):
#   dist/ntkviz-<version>-linux-x86_64/         the bundle: ./ntkviz, _internal/, share/, install.sh, uninstall.sh
#   dist/ntkviz-<version>-linux-x86_64.tar.gz   the same folder, packed
# PyInstaller's own work files go to build/pyinstaller/.
# Not part of CI (.ci/run only runs the tests); tests/test_packaging.py smoke-tests a bundle
# when PyInstaller is installed (NTKVIZ_BUNDLE=<bundle dir> re-uses a built one).
set -euo pipefail
cd "$(dirname "$0")/.."
APP_ID="io.github.ntkviz.Ntkviz"
VENV="${NTKVIZ_BUILD_VENV:-build/venv}"
PY="${PYTHON:-python3}"

# 1. Build environment: the project (editable, with the gif extra) plus PyInstaller.
if [ ! -x "$VENV/bin/python" ]; then
  echo "build_linux: creating $VENV" >&2
  "$PY" -m venv "$VENV"
fi
stamp="$VENV/.ntkviz-build-installed"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "build_linux: installing ntkviz[gif] and pyinstaller into $VENV" >&2
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -e ".[gif]" pyinstaller
  touch "$stamp"
fi
VERSION="$("$VENV/bin/python" -c 'import ntkviz; print(ntkviz.__version__)')"
APP_ID_PY="$("$VENV/bin/python" -c 'import ntkviz; print(ntkviz.APP_ID)')"
if [ "$APP_ID_PY" != "$APP_ID" ]; then
  echo "build_linux: ntkviz.APP_ID is $APP_ID_PY, packaging/linux uses $APP_ID" >&2
  exit 1
fi
NAME="ntkviz-$VERSION-linux-$(uname -m)"

# 2. PyInstaller one-folder build (about 72 s and 480 MB on the reference machine).
start=$(date +%s)
"$VENV/bin/python" -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath build/pyinstaller/dist --workpath build/pyinstaller/work \
  packaging/pyinstaller/ntkviz.spec
echo "build_linux: PyInstaller took $(( $(date +%s) - start )) s" >&2

# 3. Stage: bundle + desktop entry, AppStream file, icons and the install scripts.
OUT="dist/$NAME"
rm -rf "$OUT" "$OUT.tar.gz"
mkdir -p dist
cp -a build/pyinstaller/dist/ntkviz "$OUT"
mkdir -p "$OUT/share/applications" "$OUT/share/metainfo" "$OUT/share/icons"
cp packaging/linux/$APP_ID.desktop "$OUT/share/applications/"
cp packaging/linux/$APP_ID.metainfo.xml "$OUT/share/metainfo/"
cp -r packaging/linux/icons/hicolor "$OUT/share/icons/"
install -m 755 packaging/linux/install.sh packaging/linux/uninstall.sh "$OUT/"
cat > "$OUT/README.txt" <<EOF
ntkviz $VERSION for Linux x86_64 (glibc >= 2.34: Debian 12, Ubuntu 22.04 or newer).

Run:        ./ntkviz            (or ./ntkviz --help for the command line)
Install:    ./install.sh        (adds ntkviz to the application menu of this user;
                                 the menu entry points at this folder, so keep it where it is)
Uninstall:  ./uninstall.sh      (--purge also deletes settings and caches)

System libraries the bundle does not carry (Debian names): libgl1 libegl1 fontconfig-config
fonts-dejavu-core. See https://doc.qt.io/qt-6/linux-requirements.html for other systems.
EOF

# 4. Quick check that the frozen program starts (headless), then pack.
QT_QPA_PLATFORM=offscreen "$OUT/ntkviz" --version
tar -C dist -czf "$OUT.tar.gz" "$NAME"
echo "build_linux: bundle  $OUT  $(du -sh "$OUT" | cut -f1)"
echo "build_linux: archive $OUT.tar.gz  $(du -h "$OUT.tar.gz" | cut -f1)"
echo "build_linux: largest parts of _internal:"
du -s "$OUT"/_internal/* 2>/dev/null | sort -rn | head -8 | awk '{printf "  %6.1f MB  %s\n", $1/1024, $2}'
