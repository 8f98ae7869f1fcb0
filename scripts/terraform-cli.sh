#!/usr/bin/env bash
# A Terraform CLI new enough for the provider's resource identity, list
# resources (`terraform query`) and actions, which the acceptance tests of
# those features run through TF_ACC_TERRAFORM_PATH:
#
#   scripts/terraform-cli.sh          build it unless it is built, print its path
#   scripts/terraform-cli.sh path     print where it is (or would be) kept
#   scripts/terraform-cli.sh version  print the version it builds
#
# Terraform's release is built from the Go module proxy, with no download
# from elsewhere. Its root module refers to its remote-state backends (and
# to internal/legacy) through replace directives that point into folders its
# module zip leaves out, so a build of the module as it is fails. The build
# goes through a module of its own that requires Terraform at the pinned
# version, pins every other module as Terraform's go.mod does, and replaces
# each of those nested modules with a stand-in: a remote-state backend whose
# configuration fails, saying it is not in this build. Provider tests use
# the local backend only; everything else is Terraform's own code.
#
# Kept in TERRAFORM_CLI_HOME (default ~/.cache/terraform-cli), one folder per
# version; TERRAFORM_CLI_VERSION picks another release. A first build takes
# a few minutes on two cores.
set -euo pipefail

VERSION=${TERRAFORM_CLI_VERSION:-v1.14.9}
HOME_DIR=${TERRAFORM_CLI_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-cli}
OUT=$HOME_DIR/$VERSION/terraform
MODULE=github.com/hashicorp/terraform

say() { echo "terraform-cli: $*" >&2; }
fail() { say "$*"; exit 1; }

# built: the binary is there and says it is the pinned version.
built() {
  local said
  [[ -x $OUT ]] && said=$("$OUT" version 2>/dev/null) && [[ ${said%%$'\n'*} == "Terraform $VERSION" ]]
}

# stand_in DIR MODULE_PATH writes the module that replaces MODULE_PATH.
stand_in() {
  local dir=$1 path=$2 name=${2##*/}
  mkdir -p "$dir"
  printf 'module %s\n\ngo %s\n' "$path" "$GO_LINE" >"$dir/go.mod"
  if [[ $path != "$MODULE/internal/backend/remote-state/"* ]]; then
    # Only Terraform's own tests import these; the CLI needs the package to exist.
    printf '// Package %s is left out of this build of Terraform.\npackage %s\n' "$name" "$name" >"$dir/doc.go"
    return
  fi
  cat >"$dir/backend.go" <<EOF
// Package $name stands in for Terraform's "$name" remote-state backend,
// which this build of Terraform leaves out.
package $name

import (
	"github.com/hashicorp/terraform/internal/backend"
	"github.com/hashicorp/terraform/internal/configs/configschema"
	"github.com/hashicorp/terraform/internal/states/statemgr"
	"github.com/hashicorp/terraform/internal/tfdiags"
	"github.com/zclconf/go-cty/cty"
)

// New returns a backend that fails as soon as a configuration selects it.
func New() backend.Backend { return missing{} }

type missing struct{}

func notBuilt() tfdiags.Diagnostics {
	var diags tfdiags.Diagnostics
	return diags.Append(tfdiags.Sourceless(tfdiags.Error, "The \"$name\" backend is not in this Terraform",
		"This Terraform was built for provider tests without its remote-state backends; use the local backend."))
}

func (missing) ConfigSchema() *configschema.Block { return &configschema.Block{} }

func (missing) PrepareConfig(v cty.Value) (cty.Value, tfdiags.Diagnostics) { return v, notBuilt() }

func (missing) Configure(cty.Value) tfdiags.Diagnostics { return notBuilt() }

func (missing) StateMgr(string) (statemgr.Full, tfdiags.Diagnostics) { return nil, notBuilt() }

func (missing) DeleteWorkspace(string, bool) tfdiags.Diagnostics { return notBuilt() }

func (missing) Workspaces() ([]string, tfdiags.Diagnostics) { return nil, notBuilt() }
EOF
}

build() {
  command -v go >/dev/null || fail "building Terraform $VERSION needs Go on PATH"
  say "building Terraform $VERSION from the Go module proxy into $OUT (a first build takes a few minutes)"
  local gomod work
  gomod=$(cd / && go mod download -json "$MODULE@$VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p') || true
  [[ -f $gomod ]] || fail "cannot download $MODULE@$VERSION from the Go module proxy ($(go env GOPROXY))"
  mkdir -p "$HOME_DIR"
  work=$(mktemp -d "$HOME_DIR/build.XXXXXX")
  # shellcheck disable=SC2064 # the folder is known now
  trap "rm -rf '$work'" EXIT
  GO_LINE=$(awk '$1 == "go" {print $2; exit}' "$gomod")
  {
    printf 'module terraformcli\n\ngo %s\n\nrequire %s %s\n\n' "$GO_LINE" "$MODULE" "$VERSION"
    # Terraform's own requirements, so that every module is the version its release was built with.
    awk '/^require \(/ {on=1; print; next} on && /^\)/ {on=0; print; next} on {print}' "$gomod"
  } >"$work/go.mod"
  local path dir
  # Each replace that points into Terraform's own tree names a nested module the proxy does not serve.
  while read -r path; do
    dir=stand-in/${path#"$MODULE/internal/"}
    stand_in "$work/$dir" "$path"
    printf 'replace %s => ./%s\n' "$path" "$dir" >>"$work/go.mod"
  done < <(awk '$1 == "replace" && $4 ~ /^\.\// {print $2}' "$gomod")
  printf '//go:build tools\n\npackage terraformcli\n\nimport _ "%s"\n' "$MODULE" >"$work/tools.go"
  mkdir -p "$(dirname "$OUT")"
  # dev=no: a release build, whose version has no -dev suffix (plugin-testing reads the version).
  (cd "$work" && GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath \
    -ldflags "-s -w -X $MODULE/version.dev=no" -o "$OUT.new" "$MODULE") ||
    fail "building Terraform $VERSION failed (above)"
  mv "$OUT.new" "$OUT"
  built || fail "the Terraform built at $OUT does not say it is $VERSION"
}

case ${1:-} in
  path) echo "$OUT" ;;
  version) echo "$VERSION" ;;
  "") built || build; echo "$OUT" ;;
  *) echo "usage: $0 [path | version]" >&2; exit 2 ;;
esac
