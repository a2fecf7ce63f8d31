#!/usr/bin/env bash
# Installs the Debian packages tileops builds against. Safe to run again.
set -euo pipefail
packages=(
  cmake g++ make ninja-build pkg-config
  libboost-dev libboost-filesystem-dev   # Boost.DLL (plugin loading), small_vector
  libyaml-cpp-dev                        # the manifest
  nlohmann-json3-dev                     # JSON output, kernel configs
  libspdlog-dev                          # logging
  doctest-dev                            # tests
  libdlpack-dev                          # tensor exchange
  libcli11-dev                           # the tileops CLI
  libbenchmark-dev                       # microbenchmarks of the call path
  python3                                # the bench's comparison scripts and their tests
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq || echo "install-deps: apt-get update failed; trying the cached lists" >&2
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
