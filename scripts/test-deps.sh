#!/usr/bin/env bash
# What make test's suites need besides Go and terraform, and the one place
# that installs it:
#
#   scripts/test-deps.sh install [SUITE...]   install what the suites (all by default) lack
#   scripts/test-deps.sh run SUITE COMMAND... run COMMAND once SUITE has what it needs
#   scripts/test-deps.sh summary              print what ran and what was skipped
#   scripts/test-deps.sh packages             print every Debian package the suites use
#
# SUITE is a make target of make test: test-go, race, test-podman, test-kube.
# As root with apt-get (Debian), install installs the missing Debian
# packages, one line per group saying why, and starts the Docker daemon if
# it is installed but not answering; A2A_TEST_INSTALL=no keeps it from
# changing the machine. A Terraform new enough for the tests of resource
# identity, `terraform query` and actions is built from the Go module proxy
# by scripts/terraform-cli.sh, as any user, unless A2A_TEST_INSTALL=no, and
# run hands its path to the suite's command in A2A_TERRAFORM_CLI.
# Elsewhere nothing is installed, and run skips a
# suite that lacks a part with one line naming the part and its package, or
# for test-go, whose tests skip themselves, says which of them skip. Where
# CI asks for a part (A2A_REQUIRE_ENGINE, A2A_REQUIRE_POSTGRES,
# A2A_REQUIRE_KUBE, A2A_REQUIRE_TOOLS set to 1), its absence fails instead.
# With A2A_TEST_SUMMARY naming a file, run appends a line for each suite
# (ran and passed or failed, or skipped, and why) that summary prints.
set -euo pipefail

# The parts, each with the Debian packages that install it (none for those
# no package gives), the A2A_REQUIRE_ variable under which its absence fails,
# and the tests that need it. These packages are all make test installs.
# script_dir prints the directory of this script, whose siblings it runs.
script_dir() {
  local here=${BASH_SOURCE[0]%/*}
  [[ $here != "${BASH_SOURCE[0]}" ]] || here=.
  echo "$here"
}

# terraform_cli ARGS... runs the script that builds the Terraform CLI some
# tests need and says where it is, with the bash running this one.
terraform_cli() { "$BASH" "$(script_dir)/terraform-cli.sh" "$@"; }

declare -A packages require needed_by
part() { packages[$1]=$2 require[$1]=$3 needed_by[$1]=$4; }
part engine "" ENGINE "the container adapter's tests"
part openssh "openssh-server openssh-client" ENGINE "the container adapter's tests of an engine reached over ssh://"
part busybox busybox-static ENGINE "the tests of agents brought in images, whose shell it is"
part postgresql postgresql POSTGRES "the shared task store's tests"
part curl curl TOOLS "the examples' tests, which run the curl commands the examples print"
part terraform-cli "" TOOLS "the acceptance tests of resource identity, terraform query and actions, which need Terraform 1.14 or newer"
part cc "gcc libc6-dev" TOOLS "the race detector's run, which needs cgo"
part podman podman ENGINE "the container adapter's tests against Podman's Docker API"
part kube "etcd-server runc containernetworking-plugins conntrack iptables iproute2 procps openssl" KUBE \
  "the kubernetes adapter's tests, on a cluster of two nodes of their own"
part root "" "" ""

# The parts of each suite. test-go runs without a missing part (the tests
# that need it skip themselves), and so does every suite without the newer
# Terraform CLI, whose tests skip themselves too; otherwise the suites need
# all of their parts.
suite_parts() {
  case $1 in
    test-go) echo engine openssh busybox postgresql curl terraform-cli ;;
    race) echo cc ;;
    test-podman) echo root podman openssh ;;
    test-kube) echo root busybox curl kube terraform-cli ;;
    *) echo "unknown suite $1: one of test-go race test-podman test-kube" >&2; exit 2 ;;
  esac
}

# The variable under which a missing part of the suite fails it.
required_by() {
  local suite=$1 name
  case $suite in
    test-podman) name=ENGINE ;;
    test-kube) name=KUBE ;;
    *) name=${require[$2]} ;;
  esac
  echo "A2A_REQUIRE_$name"
}

# has CMD: CMD is on PATH or where Debian puts administrators' commands,
# which a user's PATH may leave out.
has() { command -v "$1" >/dev/null 2>&1 || [[ -x /usr/sbin/$1 || -x /sbin/$1 ]]; }

# lacks PART prints what of PART is missing, nothing when it is all there.
lacks() {
  local missing=() c
  case $1 in
    root) [[ $EUID == 0 ]] || missing+=(root) ;;
    engine) docker version --format '{{.Server.Version}}' >/dev/null 2>&1 || missing+=("a container engine answering the docker CLI") ;;
    openssh) for c in sshd ssh ssh-keygen; do has "$c" || missing+=("$c"); done ;;
    busybox)
      if ! has busybox; then missing+=("a static busybox")
      elif ldd "$(command -v busybox)" >/dev/null 2>&1; then missing+=("a static busybox (the one on PATH is linked dynamically)"); fi ;;
    postgresql) compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null || has postgres || missing+=("the PostgreSQL server") ;;
    curl) has curl || missing+=(curl) ;;
    cc) printf 'int main(void) { return 0; }\n' | "${CC:-gcc}" -x c -o /dev/null - >/dev/null 2>&1 || missing+=("a C compiler with the C library's headers") ;;
    podman) has podman || missing+=(podman) ;;
    terraform-cli) [[ -x $(terraform_cli path) ]] || missing+=("Terraform $(terraform_cli version) as scripts/terraform-cli.sh builds it") ;;
    kube)
      for c in etcd runc conntrack iptables ip sysctl openssl; do has "$c" || missing+=("$c"); done
      [[ -x ${CNI_BIN:-/usr/lib/cni}/bridge ]] || missing+=("the CNI plugins") ;;
  esac
  [[ ${#missing[@]} == 0 ]] || join ', ' "${missing[@]}"
}

# join SEP ITEM...: the items with SEP between them.
join() {
  local sep=$1 out
  shift
  printf -v out "%s$sep" "$@"
  echo "${out%"$sep"}"
}

can_install() { [[ $EUID == 0 && ${A2A_TEST_INSTALL:-yes} != no ]] && command -v apt-get >/dev/null; }

# how PART: how to get a missing part, for its skip line.
how() {
  case $1 in
    root) echo "run make test as root" ;;
    engine) echo "install Docker (Debian: docker.io), start it and let this user reach it; as root make test starts an installed daemon" ;;
    terraform-cli) echo "scripts/terraform-cli.sh builds it from the Go module proxy; make test does unless A2A_TEST_INSTALL=no" ;;
    *) echo "Debian: apt-get install ${packages[$1]}, done by make test as root" ;;
  esac
}

say() { echo "test deps: $*" >&2; }

record() {
  echo "$*" >&2
  [[ -z ${A2A_TEST_SUMMARY:-} ]] || echo "$*" >>"$A2A_TEST_SUMMARY"
}

# start_docker starts an installed Docker daemon that does not answer; it
# keeps running after make test, as a daemon the machine starts would.
start_docker() {
  [[ -z $(lacks engine) ]] && return
  has dockerd && has docker || return 0
  local log=${TMPDIR:-/tmp}/dockerd.log i
  say "starting the Docker daemon (log: $log), for ${needed_by[engine]}"
  setsid -f dockerd >"$log" 2>&1 </dev/null
  for ((i = 0; i < 60; i++)); do [[ -z $(lacks engine) ]] && return; sleep 1; done
  say "the Docker daemon does not answer after a minute; the end of $log:"
  tail -n 5 "$log" >&2
}

# build_terraform_cli builds the Terraform CLI the suites need, unless
# told not to change the machine; a failed build is reported and leaves
# the part missing.
build_terraform_cli() {
  [[ ${A2A_TEST_INSTALL:-yes} != no && -n $(lacks terraform-cli) ]] || return 0
  say "building Terraform $(terraform_cli version) with scripts/terraform-cli.sh, for ${needed_by[terraform-cli]}"
  local log
  log=$(mktemp)
  if ! terraform_cli >"$log" 2>&1; then
    say "scripts/terraform-cli.sh could not build it; the end of its output:"
    tail -n 10 "$log" >&2
  fi
  rm -f "$log"
}

# install builds the Terraform CLI (compiling, bound by the cores) while
# apt-get fetches and unpacks packages (bound by the network and disk), so
# on a fresh machine the two take about as long as the longer one.
install() {
  local suites=("$@") start=$SECONDS cli_build=
  [[ ${#suites[@]} -gt 0 ]] || suites=(test-go race test-podman test-kube)
  for suite in "${suites[@]}"; do suite_parts "$suite" >/dev/null; done
  for suite in "${suites[@]}"; do
    if [[ " $(suite_parts "$suite") " == *" terraform-cli "* ]]; then
      build_terraform_cli &
      cli_build=$!
      break
    fi
  done
  install_packages "${suites[@]}"
  [[ -z $cli_build ]] || wait "$cli_build"
  if ((SECONDS - start > 1)); then
    record "install: took $((SECONDS - start))s"
  fi
}

install_packages() {
  local suites=("$@") suite p wanted=() list
  can_install || return 0
  for suite in "${suites[@]}"; do
    for p in $(suite_parts "$suite"); do
      [[ $p == engine ]] && start_docker
      [[ -n ${packages[$p]} && -n $(lacks "$p") && " ${wanted[*]} " != *" $p "* ]] && wanted+=("$p")
    done
  done
  [[ ${#wanted[@]} -gt 0 ]] || return 0
  for p in "${wanted[@]}"; do
    say "installing ${packages[$p]}, for ${needed_by[$p]}"
    list+=" ${packages[$p]}"
  done
  local log
  log=$(mktemp)
  # shellcheck disable=SC2086 # the packages are words
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $list; } >"$log" 2>&1; then
    say "apt-get could not install$list; the end of its output:"
    tail -n 10 "$log" >&2
  fi
  rm -f "$log"
}

run() {
  local suite=$1 p missing flag required=() absent=() start
  shift
  install "$suite"
  for p in $(suite_parts "$suite"); do
    missing=$(lacks "$p")
    [[ -n $missing ]] || continue
    flag=$(required_by "$suite" "$p")
    if [[ ${!flag:-} == 1 ]]; then
      required+=("$flag=1 but it lacks $missing ($(how "$p"))")
    elif [[ $suite == test-go || $p == terraform-cli ]]; then
      record "$suite: skips ${needed_by[$p]}, for lack of $missing ($(how "$p"))"
    else
      absent+=("$missing ($(how "$p"))")
    fi
  done
  if [[ ${#required[@]} -gt 0 ]]; then
    record "$suite: FAILED: $(join '; ' "${required[@]}")"
    return 1
  fi
  if [[ ${#absent[@]} -gt 0 ]]; then
    record "$suite: skipped: needs $(join '; ' "${absent[@]}")"
    return 0
  fi
  # The tests that need the newer Terraform find it here; the others run
  # on the terraform on PATH.
  if [[ " $(suite_parts "$suite") " == *" terraform-cli "* && -z $(lacks terraform-cli) ]]; then
    A2A_TERRAFORM_CLI=$(terraform_cli path)
    export A2A_TERRAFORM_CLI
  fi
  start=$SECONDS
  if "$@"; then
    record "$suite: passed in $((SECONDS - start))s"
  else
    record "$suite: FAILED after $((SECONDS - start))s"
    return 1
  fi
}

# prebuild_kube builds the kubernetes suite's cluster parts (the first
# time about a quarter of an hour of compiling) in the background at the
# lowest priority, while the suites before it run, when that suite can run;
# its `up` waits for the build. It runs until the build ends.
prebuild_kube() {
  [[ -z $(lacks root) && -z $(lacks kube) ]] || return 0
  local start=$SECONDS log
  log=$(mktemp)
  # Where the kernel groups the processes of a session for scheduling
  # (autogroup), nice counts only inside the group: this session's, which
  # make test gives the build alone, is made the lowest too.
  if [[ -w /proc/$BASHPID/autogroup ]]; then echo 19 2>/dev/null >"/proc/$BASHPID/autogroup" || true; fi
  if nice -n 19 "$BASH" "$(script_dir)/kube-cluster.sh" build >"$log" 2>&1; then
    ((SECONDS - start <= 1)) || record "kube build: took $((SECONDS - start))s, in the background"
  else
    record "kube build: FAILED in the background; test-kube builds again, the end of its output: $(tail -n 3 "$log" | tr '\n' ' ')"
  fi
  rm -f "$log"
}

summary() {
  [[ -s ${A2A_TEST_SUMMARY:-} ]] || return 0
  echo
  echo "make test: what ran and what was skipped"
  local line
  while IFS= read -r line; do echo "  $line"; done <"$A2A_TEST_SUMMARY"
}

case ${1:-} in
  install) shift; install "$@" ;;
  packages) echo "${packages[@]}" | xargs -n1 | sort | xargs ;;
  prebuild-kube) prebuild_kube ;;
  run) [[ $# -ge 3 ]] || { echo "usage: $0 run SUITE COMMAND..." >&2; exit 2; }; shift; run "$@" ;;
  summary) summary ;;
  *) echo "usage: $0 install [SUITE...] | prebuild-kube | run SUITE COMMAND... | summary | packages" >&2; exit 2 ;;
esac
