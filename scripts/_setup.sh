# Shared set-up for ./run.sh and ./test.sh (sourced, not executed).
#   ntkviz_setup <extras> <with-window:0|1>
# 1. installs the Debian libraries PySide6 links against when they are missing
#    (needs root or sudo; otherwise prints the apt-get line and stops),
# 2. creates ./.venv when missing and installs the package (editable) with <extras>.
ntkviz_setup() {
  local extras="$1" window="$2"
  local pkgs="libglib2.0-0 libgl1 libegl1 libxkbcommon0 libfontconfig1 libdbus-1-3 libgomp1"
  if [ "$window" = 1 ]; then
    pkgs="$pkgs libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 \
libxcb-image0 libxcb-render-util0 libxcb-randr0 libxcb-xfixes0 libxcb-xkb1 libx11-xcb1"
  fi
  if command -v dpkg-query >/dev/null 2>&1; then
    local missing="" p
    for p in $pkgs; do
      dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
    done
    if [ -n "$missing" ]; then
      local sudo=""
      if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
          echo "ntkviz: missing Debian packages:$missing" >&2
          echo "ntkviz: run as root: apt-get install -y$missing" >&2
          return 1
        fi
      fi
      echo "ntkviz: installing Debian packages:$missing" >&2
      $sudo apt-get update -qq
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
    fi
  fi
  local py="${PYTHON:-python3}"
  local stamp=".venv/.ntkviz-installed-$extras"
  if [ ! -x .venv/bin/python ]; then
    echo "ntkviz: creating .venv" >&2
    "$py" -m venv .venv
  fi
  if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    echo "ntkviz: installing ntkviz[$extras] into .venv" >&2
    .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
    .venv/bin/python -m pip install -q --disable-pip-version-check -e ".[$extras]"
    touch "$stamp"
  fi
}
