#!/bin/sh
# Install recall: download the release archive for this platform, verify its sha256, put `recall` in
# ~/.local/bin (or $RECALL_INSTALL_DIR).
#
#   curl -fsSL https://github.com/recall-cli/recall/releases/latest/download/install.sh | sh
#
# Environment:
#   RECALL_INSTALL_DIR   where to put the binary (default ~/.local/bin)
#   RECALL_RELEASE_URL   the release folder holding recall-<os>-<arch>.tar.gz and its .sha256 (default
#                        https://github.com/recall-cli/recall/releases/latest/download; a mirror, or a tag's
#                        folder .../releases/download/v0.1.0 to pin a version). `bun run build` reads it too.
set -eu

base_url="${RECALL_RELEASE_URL:-${RECALL_DOWNLOAD_BASE_URL:-https://github.com/recall-cli/recall/releases/latest/download}}"
base_url="${base_url%/}"
install_dir="${RECALL_INSTALL_DIR:-$HOME/.local/bin}"

fail() {
  echo "recall install: $*" >&2
  exit 1
}

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) fail "unsupported system $(uname -s) (release archives exist for Linux and macOS)" ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) fail "unsupported processor $(uname -m) (release archives exist for x64 and arm64)" ;;
esac
archive="recall-$os-$arch.tar.gz"

download() { # url file
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --retry 2 --connect-timeout 20 -o "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q --timeout=60 -O "$2" "$1"
  else
    fail "neither curl nor wget is installed"
  fi
}

sha256_of() { # file
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d ' ' -f 1
  else
    fail "neither sha256sum nor shasum is installed; cannot verify the download"
  fi
}

tmp="$(mktemp -d 2>/dev/null || mktemp -d -t recall)"
trap 'rm -rf "$tmp"' EXIT INT TERM

echo "recall install: downloading $base_url/$archive"
download "$base_url/$archive" "$tmp/$archive" || fail "download failed: $base_url/$archive"
download "$base_url/$archive.sha256" "$tmp/$archive.sha256" || fail "download failed: $base_url/$archive.sha256"

expected="$(cut -d ' ' -f 1 < "$tmp/$archive.sha256" | tr -d '\r\n')"
actual="$(sha256_of "$tmp/$archive")"
[ -n "$expected" ] || fail "empty checksum file $archive.sha256"
[ "$expected" = "$actual" ] || fail "checksum mismatch for $archive (expected $expected, got $actual); nothing was installed"

tar -xzf "$tmp/$archive" -C "$tmp" recall || fail "cannot unpack $archive"
mkdir -p "$install_dir"
# Write next to the target, then rename: a running recall is never overwritten in place.
cp "$tmp/recall" "$install_dir/.recall.tmp.$$"
chmod 755 "$install_dir/.recall.tmp.$$"
mv -f "$install_dir/.recall.tmp.$$" "$install_dir/recall"
echo "recall install: installed $install_dir/recall ($("$install_dir/recall" --version 2>/dev/null || echo "version unknown"))"

case ":$PATH:" in
  *":$install_dir:"*) ;;
  *)
    echo "recall install: $install_dir is not on your PATH; add this line to your shell profile (~/.bashrc, ~/.zshrc):"
    echo "  export PATH=\"$install_dir:\$PATH\""
    ;;
esac
echo "recall install: next, run \`recall doctor\`, and \`recall skill install\` to let Claude Code use it"
