#!/usr/bin/env bash
# The release build of .goreleaser.yml done with go build alone, and a check
# of its archives the way an operator installs one:
#
#   scripts/release.sh build VERSION DIST    # the archives, manifest and checksums into DIST
#   scripts/release.sh check VERSION DIST    # the quickstart applied from DIST's archive
#
# build makes, for linux on amd64 and arm64, one zip holding the provider
# (terraform-provider-a2a_v<VERSION>) and the agent host it starts
# (a2a-agent-host), both static and stamped with VERSION, as
# .goreleaser.yml's builds do; then the registry manifest and the SHA256SUMS
# file over both. Keep the two in step.
#
# check verifies the checksums, installs this machine's zip into a
# filesystem mirror in a clean temporary directory, runs terraform init
# there (no registry, no network) and applies a copy of examples/quickstart
# with the local adapter, sends the greeter a message, and destroys it. With
# a container engine answering (docker info), it applies the quickstart once
# more with the container adapter, which builds its base image from the
# archive's agent host, offline, and removes that image afterwards.
set -euo pipefail

usage() { echo "usage: $0 build|check VERSION DIST" >&2; exit 2; }
[[ $# -eq 3 && ( $1 == build || $1 == check ) ]] || usage
action=$1 version=$2
fail() { echo "release: $*" >&2; exit 1; }
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] ||
  fail "VERSION=$version is not a release version such as 1.2.0 (Terraform installs only those)"

root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$3"
dist="$(cd "$3" && pwd)"
project=terraform-provider-a2a
host=a2a-agent-host
sums="${project}_${version}_SHA256SUMS"

build() {
  local arch work zip stamp
  # As goreleaser's mod_timestamp: the files carry the commit's time.
  stamp=$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)
  for arch in amd64 arm64; do
    work=$(mktemp -d)
    echo "release: building ${project}_${version}_linux_${arch}.zip" >&2
    (cd "$root" && CGO_ENABLED=0 GOOS=linux GOARCH=$arch go build -trimpath -ldflags "-s -w -X main.version=$version" \
      -o "$work/${project}_v${version}" . &&
      CGO_ENABLED=0 GOOS=linux GOARCH=$arch go build -trimpath -ldflags "-s -w -X main.version=$version" \
        -o "$work/$host" "./cmd/$host")
    touch -d "@$stamp" "$work"/*
    zip="$dist/${project}_${version}_linux_${arch}.zip"
    rm -f "$zip"
    (cd "$work" && zip -q -X "$zip" "${project}_v${version}" "$host")
    rm -rf "$work"
  done
  cp "$root/terraform-registry-manifest.json" "$dist/${project}_${version}_manifest.json"
  (cd "$dist" && sha256sum "${project}_${version}"_linux_*.zip "${project}_${version}_manifest.json" >"$sums")
  echo "release: $dist holds:" >&2
  (cd "$dist" && ls -l "${project}_${version}"_*) >&2
}

check() {
  local arch zip work tfrc
  case $(uname -m) in
    x86_64) arch=amd64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) fail "no release archive for this machine ($(uname -m))" ;;
  esac
  zip="${project}_${version}_linux_${arch}.zip"
  [[ -f $dist/$zip && -f $dist/$sums ]] || fail "$dist lacks $zip or $sums: run $0 build $version $dist first"
  (cd "$dist" && sha256sum --quiet -c --ignore-missing "$sums") || fail "$zip does not match $sums"
  unzip -l "$dist/$zip" | grep -q " $host\$" || fail "$zip lacks the agent host $host"

  work=$(mktemp -d)
  # shellcheck disable=SC2064 # the paths are fixed now
  trap "cleanup '$work'" EXIT
  mkdir -p "$work/mirror/registry.terraform.io/a2a-terraform/a2a"
  cp "$dist/$zip" "$work/mirror/registry.terraform.io/a2a-terraform/a2a/"
  tfrc="$work/terraformrc"
  cat >"$tfrc" <<RC
provider_installation {
  filesystem_mirror {
    path    = "$work/mirror"
    include = ["registry.terraform.io/a2a-terraform/a2a"]
  }
}
RC
  export TF_CLI_CONFIG_FILE="$tfrc" TF_IN_AUTOMATION=1 CHECKPOINT_DISABLE=1
  export GREETING="Hello from the $version release"

  quickstart "$work/local" "$version" ""
  if docker info >/dev/null 2>&1; then
    quickstart "$work/container" "$version" "container {}"
    docker image rm "$project:$version" >/dev/null
  else
    echo "release: no container engine answers (docker info): the container adapter's pass is skipped" >&2
  fi
  echo "release: the $version archive ran the quickstart from a clean directory" >&2
}

# quickstart DIR VERSION ADAPTER_BLOCK: a copy of examples/quickstart in DIR
# that asks for exactly VERSION (a pre-release is never picked otherwise),
# with ADAPTER_BLOCK added to its provider block, initialised, applied, sent
# a message and destroyed.
quickstart() {
  local dir=$1 out
  mkdir -p "$dir"
  cp "$root"/examples/quickstart/*.tf "$root"/examples/quickstart/*.toml "$dir/"
  cat >"$dir/release_override.tf" <<TF
terraform {
  required_providers {
    a2a = { source = "a2a-terraform/a2a", version = "= $2" }
  }
}
provider "a2a" {
  $3
}
TF
  echo "release: terraform init and apply in $dir${3:+ ($3)}" >&2
  terraform -chdir="$dir" init -input=false -no-color >/dev/null
  terraform -chdir="$dir" apply -auto-approve -input=false -no-color >/dev/null
  out=$(sh -c "$(terraform -chdir="$dir" output -raw send_message_curl)")
  [[ $out == *'"result"'* ]] || fail "the greeter did not answer the message: $out"
  echo "release: the greeter answered: ${out:0:160}" >&2
  terraform -chdir="$dir" destroy -auto-approve -input=false -no-color >/dev/null
}

# cleanup WORK destroys what a failed check left running, then WORK.
cleanup() {
  local dir
  for dir in "$1"/local "$1"/container; do
    if [[ -f $dir/terraform.tfstate ]]; then
      terraform -chdir="$dir" destroy -auto-approve -input=false -no-color >/dev/null 2>&1 || true
    fi
  done
  rm -rf "$1"
}

"$action"
