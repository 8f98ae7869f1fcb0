#!/usr/bin/env bash
# A real Kubernetes cluster of two nodes on this machine for the kubernetes
# adapter's tests, with nothing pulled from a registry:
#
#   scripts/kube-cluster.sh up               build what is missing, start, print the kubeconfig path
#   scripts/kube-cluster.sh build            build what is missing, and nothing else
#   scripts/kube-cluster.sh kubelet NODE stop|start
#                                            kill the kubelet of NODE (as a node that dies would), or start it again
#   scripts/kube-cluster.sh kubectl ARGS...  run the cluster's kubectl, as its admin
#   scripts/kube-cluster.sh env              print `export KUBECONFIG=...` for a cluster that is up
#   scripts/kube-cluster.sh load IMAGE_TAR   import an OCI archive into every node's image store
#   scripts/kube-cluster.sh image REF HOST OUT_TAR
#                                            pack a static agent host (a2a-agent-host) as an agent base image
#   scripts/kube-cluster.sh bundle REF OUT_TAR PATH=FILE...
#                                            pack static programs as an image of a brought agent
#   scripts/kube-cluster.sh status           show what runs
#   scripts/kube-cluster.sh down             stop everything, undo every change made to the host
#
# The Kubernetes components are built once from the Go module proxy (the
# published k8s.io/kubernetes module, its staging modules replaced by their
# published versions), containerd likewise (Debian's lacks the CRI plugin),
# and metrics-server, which serves the metrics API autoscalers read;
# etcd, runc and the CNI plugins come from Debian (etcd-server runc
# containernetworking-plugins conntrack iptables, and openssl). Images are
# never pulled: pods use imagePullPolicy Never on archives loaded with `load`.
#
# The first node runs in this host's network namespace, at its address. The
# second (KUBE_NODES=1 leaves it out) runs its own containerd and kubelet in
# a network namespace of its own, reached over a veth on a bridge of this
# host's (LINK_PREFIX.0/24: the host is .1, the second node .2), where the
# API server listens too; each node's pods live on a bridge of their own, in
# the /24 of the cluster CIDR the controller manager gives the node, routed
# through the node's address. The nodes share this host's kernel, so each
# kubelet has a cgroup root of its own.
# Run as root. Builds are kept under KUBE_CLUSTER_HOME (default
# ~/.cache/kube-cluster: bin/, images/, build/); a running cluster lives in
# its state/, which `down` removes.
set -euo pipefail

HOME_DIR=${KUBE_CLUSTER_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/kube-cluster}
K8S_VERSION=${K8S_VERSION:-v1.37.2}
CONTAINERD_VERSION=${CONTAINERD_VERSION:-v2.4.2}
CRICTL_VERSION=${CRICTL_VERSION:-v1.37.0}
METRICS_SERVER_VERSION=${METRICS_SERVER_VERSION:-v0.8.0}
METRICS_PORT=${METRICS_PORT:-4443}
PAUSE_IMAGE=registry.k8s.io/pause:3.10.2
APISERVER_PORT=${APISERVER_PORT:-6443}
ETCD_PORT=${ETCD_PORT:-23790}
CLUSTER_CIDR=${CLUSTER_CIDR:-10.244.0.0/16}
SERVICE_CIDR=${SERVICE_CIDR:-10.96.0.0/16}
NODES=${KUBE_NODES:-2}
LINK_PREFIX=${LINK_PREFIX:-10.250.0}
LINK_BRIDGE=a2a-kube0
APISERVER_IP=$LINK_PREFIX.1
RUNC=$(command -v runc || echo /usr/sbin/runc)
ETCD=$(command -v etcd || echo /usr/bin/etcd)
CNI_BIN=${CNI_BIN:-/usr/lib/cni}
NODE=$(hostname | tr '[:upper:]' '[:lower:]')
# Kubelet refuses a loopback node address: the first node is this host's
# address on its default route; nothing listens on it but kubelet.
NODE_IP=${NODE_IP:-$(ip -4 route get 1.1.1.1 2>/dev/null | awk '{for (i = 1; i < NF; i++) if ($i == "src") {print $(i + 1); exit}}')}

BIN=$HOME_DIR/bin
IMAGES=$HOME_DIR/images
STATE=$HOME_DIR/state
PKI=$STATE/pki
RUN=$STATE/run
LOGS=$STATE/logs
KUBECONFIG_FILE=$STATE/admin.kubeconfig
# containerd refuses a shim socket dir longer than a unix socket path allows.
SHIM_DIR=${SHIM_DIR:-/run/a2a-kube-cluster-shims}
# What the host looked like before `up`, kept outside state/ so that a
# `down` after a crash still finds it.
HOST_BEFORE=$HOME_DIR/host-before-up
export PATH=$BIN:$PATH

# Node I (1 or 2): its name, its address, where its files are, the socket of
# its containerd, its network namespace (none for the first), and the cgroup
# its kubelet puts pods under.
node_name() { if [[ $1 == 1 ]]; then echo "$NODE"; else echo "$NODE-$1"; fi; }
node_ip() { if [[ $1 == 1 ]]; then echo "$NODE_IP"; else echo "$LINK_PREFIX.$1"; fi; }
node_dir() { echo "$STATE/node$1"; }
node_sock() { echo "$STATE/node$1/containerd/containerd.sock"; }
node_netns() { [[ $1 == 1 ]] || echo "a2a-kube-node$1"; }
node_cgroup() { if [[ $1 == 1 ]]; then echo /; else echo "/a2a-kube-node$1"; fi; }
nodes() { seq 1 "$NODES"; }
# node_of NAME: the number of the node called NAME.
node_of() {
  local i
  for i in $(nodes); do [[ $(node_name "$i") == "$1" ]] && { echo "$i"; return 0; }; done
  fail "no node is called $1: the nodes are $(for i in $(nodes); do node_name "$i"; done | paste -sd' ')"
}

say() { printf '%s kube-cluster: %s\n' "$(date +%T)" "$*" >&2; }
fail() {
  say "$*"
  local f
  for f in "$LOGS"/*.log; do
    [[ -f $f ]] && { printf -- '--- last lines of %s\n' "$f" >&2; tail -n 5 "$f" | cut -c1-300 >&2; }
  done
  exit 1
}

# ------------------------------------------------------------------ build
# build builds what is missing, under a lock, so that a build begun
# elsewhere (make test starts one in the background) is waited for, not
# run twice.
build() {
  local lock
  mkdir -p "$HOME_DIR"
  exec {lock}>"$HOME_DIR/.build.lock"
  if ! flock -n "$lock"; then
    say "waiting for a build of the cluster's parts under way elsewhere"
    flock "$lock"
  fi
  build_missing
  exec {lock}>&-
}

build_missing() {
  local b missing=0
  for b in kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl; do [[ -x $BIN/$b ]] || missing=1; done
  if [[ $missing == 1 || $(cat "$BIN/.k8s-version" 2>/dev/null) != "$K8S_VERSION" ]]; then
    say "building Kubernetes $K8S_VERSION (the first time takes several minutes)"
    local mod=$HOME_DIR/build/k8s-$K8S_VERSION gomod staging
    mkdir -p "$mod" "$BIN"
    gomod=$(cd / && go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')
    [[ -f $gomod ]] || fail "cannot download k8s.io/kubernetes@$K8S_VERSION from the module proxy"
    staging="v0.$(cut -d. -f2,3 <<<"${K8S_VERSION#v}")"
    {
      printf 'module k8sbuild\n\n%s\n\nrequire k8s.io/kubernetes %s\n\nreplace (\n' "$(grep -m1 '^go ' "$gomod")" "$K8S_VERSION"
      # k8s.io/kubernetes requires its staging modules as v0.0.0: point each at its release.
      awk -v v="$staging" '/^require \(/ {on=1; next} on && /^\)/ {on=0} on && $1 ~ /^k8s\.io\// && $2 == "v0.0.0" {print "\t" $1 " => " $1 " " v}' "$gomod"
      printf ')\n'
    } >"$mod/go.mod"
    printf '//go:build tools\n\npackage tools\n\nimport (\n' >"$mod/tools.go"
    for b in kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl; do
      printf '\t_ "k8s.io/kubernetes/cmd/%s"\n' "$b" >>"$mod/tools.go"
    done
    printf ')\n' >>"$mod/tools.go"
    local ldflags="-s -w" p
    for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
      ldflags+=" -X $p.gitVersion=$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$(cut -d. -f2 <<<"$K8S_VERSION") -X $p.gitTreeState=clean"
    done
    (cd "$mod" && go mod tidy && CGO_ENABLED=0 go build -ldflags "$ldflags" -o "$BIN/" \
      k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
      k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kubectl)
    echo "$K8S_VERSION" >"$BIN/.k8s-version"
  fi
  if [[ ! -x $BIN/containerd || ! -x $BIN/containerd-shim-runc-v2 || ! -x $BIN/ctr ||
        $(cat "$BIN/.containerd-version" 2>/dev/null) != "$CONTAINERD_VERSION" ]]; then
    say "building containerd $CONTAINERD_VERSION"
    (cd / && GOBIN=$BIN CGO_ENABLED=0 go install -ldflags "-s -w" -tags "no_btrfs no_devmapper no_zfs" \
      "github.com/containerd/containerd/v2/cmd/containerd@$CONTAINERD_VERSION" \
      "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2@$CONTAINERD_VERSION" \
      "github.com/containerd/containerd/v2/cmd/ctr@$CONTAINERD_VERSION")
    echo "$CONTAINERD_VERSION" >"$BIN/.containerd-version"
  fi
  if [[ ! -x $BIN/metrics-server || $(cat "$BIN/.metrics-server-version" 2>/dev/null) != "$METRICS_SERVER_VERSION" ]]; then
    say "building metrics-server $METRICS_SERVER_VERSION"
    (cd / && GOBIN=$BIN CGO_ENABLED=0 go install -ldflags "-s -w" "sigs.k8s.io/metrics-server/cmd/metrics-server@$METRICS_SERVER_VERSION")
    echo "$METRICS_SERVER_VERSION" >"$BIN/.metrics-server-version"
  fi
  if [[ ! -x $BIN/crictl ]]; then
    say "building crictl $CRICTL_VERSION"
    (cd / && GOBIN=$BIN CGO_ENABLED=0 go install -ldflags "-s -w" "sigs.k8s.io/cri-tools/cmd/crictl@$CRICTL_VERSION")
  fi
  if [[ ! -f $IMAGES/pause.tar ]]; then
    say "building the pause image"
    local src=$HOME_DIR/build/pause
    mkdir -p "$src" "$IMAGES"
    printf 'module pause\n\ngo 1.24\n' >"$src/go.mod"
    cat >"$src/main.go" <<'EOF'
// pause holds a pod's namespaces: it waits for SIGTERM or SIGINT and reaps
// the children it inherits.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for s := range signals {
		if s != syscall.SIGCHLD {
			return
		}
		var status syscall.WaitStatus
		for {
			if pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil); pid <= 0 || err != nil {
				break
			}
		}
	}
}
EOF
    (cd "$src" && CGO_ENABLED=0 go build -ldflags "-s -w" -o "$src/pause" .)
    mkdir -p "$src/root" && install -m 0755 "$src/pause" "$src/root/pause"
    pack "$PAUSE_IMAGE" "$src/root" "$IMAGES/pause.tar" '["/pause"]' 0
  fi
}

# pack REF ROOT OUT ENTRYPOINT_JSON USER: a one-layer OCI archive holding
# the files of directory ROOT and an empty /tmp.
pack() {
  local ref=$1 root=$2 out=$3 entrypoint=$4 user=$5 work
  # The name kubelet asks for: a bare name is Docker Hub's, as it reads it.
  case ${ref%%/*} in
    "$ref") ref=docker.io/library/$ref ;;
    *.* | *:* | localhost) ;;
    *) ref=docker.io/$ref ;;
  esac
  work=$(mktemp -d)
  mkdir -p "$work/root/tmp" "$work/oci/blobs/sha256"
  chmod 1777 "$work/root/tmp"
  cp -R "$root/." "$work/root/"
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$work/root" -cf "$work/layer.tar" .
  blob() { # blob FILE: store FILE as a blob, print its digest and size
    local sum; sum=$(sha256sum "$1" | cut -d' ' -f1)
    cp "$1" "$work/oci/blobs/sha256/$sum"
    echo "$sum $(stat -c %s "$1")"
  }
  local layer layer_size config config_size manifest manifest_size
  read -r layer layer_size < <(blob "$work/layer.tar")
  printf '{"architecture":"amd64","os":"linux","config":{"Entrypoint":%s,"User":"%s","WorkingDir":"/"},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
    "$entrypoint" "$user" "$layer" >"$work/config.json"
  read -r config config_size < <(blob "$work/config.json")
  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%s}]}' \
    "$config" "$config_size" "$layer" "$layer_size" >"$work/manifest.json"
  read -r manifest manifest_size < <(blob "$work/manifest.json")
  printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"annotations":{"io.containerd.image.name":"%s","org.opencontainers.image.ref.name":"%s"}}]}' \
    "$manifest" "$manifest_size" "$ref" "${ref##*:}" >"$work/oci/index.json"
  echo '{"imageLayoutVersion":"1.0.0"}' >"$work/oci/oci-layout"
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$work/oci" -cf "$out" .
  rm -rf "$work"
}

# image REF HOST OUT: the agents' base image, whose entrypoint is the agent
# host HOST, run as an unprivileged user.
image() {
  [[ $# == 3 ]] || usage
  local staged; staged=$(mktemp -d)
  install -m 0755 "$2" "$staged/a2a-agent-host"
  pack "$1" "$staged" "$3" '["/a2a-agent-host"]' 65534:65534
  rm -rf "$staged"
}

# bundle REF OUT PATH=FILE...: an image of brought agents, holding each
# FILE (a static program) at PATH, with no entrypoint, so that an agent's
# [runtime] command names the program to run, as an unprivileged user.
bundle() {
  [[ $# -ge 3 ]] || usage
  local ref=$1 out=$2 staged entry; shift 2
  staged=$(mktemp -d)
  for entry in "$@"; do
    [[ $entry == /*=* && -f ${entry#*=} ]] || { rm -rf "$staged"; fail "bundle: $entry is not PATH=FILE with an absolute PATH and an existing FILE"; }
    install -D -m 0755 "${entry#*=}" "$staged/${entry%%=*}"
  done
  pack "$ref" "$staged" "$out" null 65534:65534
  rm -rf "$staged"
}

load() {
  [[ $# == 1 && -f $1 ]] || usage
  [[ -f $RUN/up ]] || fail "the cluster is not up: run $0 up first"
  local i
  for i in $(nodes); do load_into "$i" "$1"; done
}
load_into() { # load_into I IMAGE_TAR
  # ctr warns of cgroup v1 on every call; that is no news here.
  ctr --address "$(node_sock "$1")" -n k8s.io images import --snapshotter overlayfs "$2" 2> >(grep -v "support for cgroup v1 is deprecated" >&2) >/dev/null
}

# -------------------------------------------------------------- processes
# daemon NAME CMD...: starts CMD in a session of its own, logging to
# logs/NAME.log; run/NAME.pid and run/NAME.exe tell it from a reused pid.
# With NETNS set, CMD runs in that network namespace (and only there: nsenter
# leaves the mounts, so /sys/fs/cgroup stays in view).
daemon() {
  local name=$1; shift
  readlink -f "$(command -v "$1")" >"$RUN/$name.exe"
  if [[ -n ${NETNS:-} ]]; then
    setsid nsenter --net="/var/run/netns/$NETNS" "$@" >>"$LOGS/$name.log" 2>&1 </dev/null &
  else
    setsid "$@" >>"$LOGS/$name.log" 2>&1 </dev/null &
  fi
  echo $! >"$RUN/$name.pid"
}
running() {
  local pid; pid=$(cat "$RUN/$1.pid" 2>/dev/null) || return 1
  [[ -n $pid && $(readlink "/proc/$pid/exe" 2>/dev/null) == "$(cat "$RUN/$1.exe" 2>/dev/null)" ]]
}
# halt SECONDS NAME...: SIGTERM, then SIGKILL whatever is left after SECONDS.
halt() {
  local wait=$1 name pid i pids=(); shift
  for name in "$@"; do
    if running "$name"; then pid=$(cat "$RUN/$name.pid"); pids+=("$pid"); kill -TERM "$pid" 2>/dev/null || true; fi
  done
  for ((i = 0; i < wait * 10; i++)); do
    local alive=0
    for pid in "${pids[@]}"; do [[ -e /proc/$pid ]] && alive=1; done
    [[ $alive == 0 ]] && break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  for name in "$@"; do rm -f "$RUN/$name.pid" "$RUN/$name.exe"; done
}
# until_ok SECONDS WHAT CMD...: polls CMD until it succeeds.
until_ok() {
  local deadline=$((SECONDS + $1)) what=$2; shift 2
  local name
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || fail "timed out waiting for $what (logs in $LOGS)"
    for name in "$RUN"/*.pid; do
      name=$(basename "$name" .pid)
      running "$name" || fail "$name exited while waiting for $what"
    done
    sleep 0.5
  done
}
apiserver_ready() {
  curl -sf --cacert "$PKI/ca.crt" --cert "$PKI/admin.crt" --key "$PKI/admin.key" "https://$APISERVER_IP:$APISERVER_PORT/readyz" >/dev/null
}
node_field() { # node_field NAME JSONPATH
  kubectl --kubeconfig "$KUBECONFIG_FILE" get node "$1" -o "jsonpath=$2" 2>/dev/null
}
node_ready() { [[ $(node_field "$1" '{.status.conditions[?(@.type=="Ready")].status}') == True ]]; }
node_has_cidr() { [[ -n $(node_field "$1" '{.spec.podCIDR}') ]]; }

# -------------------------------------------------------------------- pki
certificates() {
  mkdir -p "$PKI"
  key() { openssl ecparam -name prime256v1 -genkey -noout -out "$PKI/$1.key" 2>/dev/null; }
  # cert NAME SUBJECT USAGE [SANS]
  # cert NAME SUBJECT USAGE [SANS], signed by the CA named in $CA (ca by default)
  cert() {
    key "$1"
    {
      echo "basicConstraints=CA:FALSE"
      echo "keyUsage=critical,digitalSignature,keyEncipherment"
      echo "extendedKeyUsage=$3"
      [[ -z ${4:-} ]] || echo "subjectAltName=$4"
    } >"$PKI/$1.ext"
    openssl req -new -key "$PKI/$1.key" -subj "$2" 2>/dev/null |
      openssl x509 -req -CA "$PKI/${CA:-ca}.crt" -CAkey "$PKI/${CA:-ca}.key" -CAcreateserial -days 365 -extfile "$PKI/$1.ext" -out "$PKI/$1.crt" 2>/dev/null
  }
  new_ca() { # new_ca NAME
    key "$1"
    openssl req -x509 -new -key "$PKI/$1.key" -subj "/CN=a2a-test-cluster-$1" -days 365 -out "$PKI/$1.crt" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" 2>/dev/null
  }
  new_ca ca
  # The API server proxies the metrics API to metrics-server as
  # front-proxy-client, whose CA vouches for nothing else.
  new_ca front-proxy-ca
  CA=front-proxy-ca cert front-proxy-client /CN=front-proxy-client clientAuth
  cert metrics-server-serving /CN=metrics-server serverAuth "DNS:metrics-server.kube-system.svc,IP:$APISERVER_IP"
  cert apiserver /CN=kube-apiserver serverAuth \
    "DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:localhost,IP:$APISERVER_IP,IP:${SERVICE_CIDR%.*/*}.1"
  cert apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" clientAuth
  openssl ecparam -name prime256v1 -genkey -noout -out "$PKI/service-accounts.key" 2>/dev/null
  openssl ec -in "$PKI/service-accounts.key" -pubout -out "$PKI/service-accounts.pub" 2>/dev/null
  local who i
  for who in admin:/O=system:masters/CN=a2a-test-admin controller-manager:/CN=system:kube-controller-manager \
             scheduler:/CN=system:kube-scheduler metrics-server:/O=system:masters/CN=a2a-test-metrics-server; do
    cert "${who%%:*}" "${who#*:}" clientAuth
    kubeconfig "${who%%:*}" >"$STATE/${who%%:*}.kubeconfig"
  done
  # Each kubelet has its node's identity, which the Node authorizer and
  # NodeRestriction hold it to.
  for i in $(nodes); do
    cert "kubelet-serving-$i" "/CN=$(node_name "$i")" serverAuth "DNS:$(node_name "$i"),IP:$(node_ip "$i")"
    cert "kubelet-$i" "/O=system:nodes/CN=system:node:$(node_name "$i")" clientAuth
    kubeconfig "kubelet-$i" >"$STATE/kubelet-$i.kubeconfig"
  done
}
kubeconfig() { # kubeconfig NAME: a kubeconfig for the client certificate NAME
  cat <<EOF
apiVersion: v1
kind: Config
clusters:
- name: a2a-test
  cluster: {server: "https://$APISERVER_IP:$APISERVER_PORT", certificate-authority-data: $(base64 -w0 "$PKI/ca.crt")}
users:
- name: $1
  user: {client-certificate-data: $(base64 -w0 "$PKI/$1.crt"), client-key-data: $(base64 -w0 "$PKI/$1.key")}
contexts:
- name: a2a-test
  context: {cluster: a2a-test, user: $1}
current-context: a2a-test
EOF
}

# ---------------------------------------------------------------- configs
node_configs() { # node_configs I: node I's containerd and kubelet configs
  local dir sock
  dir=$(node_dir "$1") sock=$(node_sock "$1")
  mkdir -p "$dir/containerd" "$dir/cni/net.d" "$dir/kubelet" "$dir/pod-logs"
  cat >"$dir/containerd/config.toml" <<EOF
version = 4
root = "$dir/containerd/root"
state = "$dir/containerd/state"
temp = "$dir/containerd/tmp"
# NRI would listen on a socket outside the state dir; nothing here needs it.
disabled_plugins = ["io.containerd.nri.v1.nri"]
[plugins."io.containerd.server.v1.grpc"]
  address = "$sock"
[plugins."io.containerd.server.v1.ttrpc"]
  address = "$sock.ttrpc"
[plugins."io.containerd.server.v1.debug"]
  address = ""
[plugins."io.containerd.shim.v1.manager"]
  socket_dir = "$SHIM_DIR/node$1"
[plugins."io.containerd.internal.v1.opt"]
  path = "$dir/containerd/opt"
[plugins."io.containerd.image-verifier.v1.bindir"]
  bin_dir = "$dir/containerd/verifiers"
[plugins."io.containerd.cri.v1.images"]
  snapshotter = "overlayfs"
  [plugins."io.containerd.cri.v1.images".pinned_images]
    sandbox = "$PAUSE_IMAGE"
[plugins."io.containerd.cri.v1.runtime"]
  # Hosts without CAP_SYS_RESOURCE cannot lower a process's oom_score_adj
  # below their own, which kubelet asks for pause containers.
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  cdi_spec_dirs = ["$dir/containerd/cdi"]
  [plugins."io.containerd.cri.v1.runtime".containerd]
    default_runtime_name = "runc"
    [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]
        BinaryName = "$RUNC"
        Root = "$dir/containerd/runc"
        SystemdCgroup = false
  [plugins."io.containerd.cri.v1.runtime".cni]
    bin_dirs = ["$CNI_BIN"]
    conf_dir = "$dir/cni/net.d"
[plugins."io.containerd.grpc.v1.cri"]
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
EOF
  cat >"$dir/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
containerRuntimeEndpoint: unix://$sock
cgroupDriver: cgroupfs
cgroupRoot: $(node_cgroup "$1")
failCgroupV1: false
failSwapOn: false
oomScoreAdj: 0
address: $(node_ip "$1")
port: ${KUBELET_PORT:-10250}
healthzBindAddress: 127.0.0.1
healthzPort: ${KUBELET_HEALTHZ_PORT:-10248}
readOnlyPort: 0
tlsCertFile: $PKI/kubelet-serving-$1.crt
tlsPrivateKeyFile: $PKI/kubelet-serving-$1.key
authentication: {anonymous: {enabled: false}, webhook: {enabled: true}, x509: {clientCAFile: $PKI/ca.crt}}
authorization: {mode: Webhook}
resolvConf: /etc/resolv.conf
podLogsDir: $dir/pod-logs
rotateCertificates: false
serializeImagePulls: false
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", nodefs.inodesFree: "1%", imagefs.available: "1%"}
syncFrequency: 10s
nodeStatusUpdateFrequency: 5s
EOF
}

# pod_network I CIDR: node I's pods on a bridge of their own, in CIDR. The
# firewall plugin lets pod traffic through a FORWARD chain whose policy is
# DROP, as Docker leaves it.
pod_network() {
  cat >"$(node_dir "$1")/cni/net.d/10-pods.conflist" <<EOF
{"cniVersion": "1.0.0", "name": "a2a-test-pods", "plugins": [
  {"type": "bridge", "bridge": "a2a-pods$1", "isGateway": true, "ipMasq": true, "hairpinMode": true,
   "ipam": {"type": "host-local", "dataDir": "$(node_dir "$1")/cni/ipam", "ranges": [[{"subnet": "$2"}]], "routes": [{"dst": "0.0.0.0/0"}]}},
  {"type": "portmap", "capabilities": {"portMappings": true}},
  {"type": "firewall", "backend": "iptables"}
]}
EOF
}

# ------------------------------------------------------------- host state
# Kubelet changes these sysctls; `down` puts them back.
SYSCTLS="vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops kernel.keys.root_maxkeys kernel.keys.root_maxbytes"
HOST_PATHS="/var/lib/kubelet /var/log/containers /var/log/pods /var/lib/cni /etc/kubernetes"
remember_host() {
  [[ -f $HOST_BEFORE ]] && return 0 # a crashed run's record is the pristine one
  local k
  {
    for k in $SYSCTLS; do echo "sysctl $k $(sysctl -n "$k")"; done
    for k in $HOST_PATHS; do [[ -e $k ]] && echo "path $k"; done
    for k in /var/run/netns/*; do [[ -e $k ]] && echo "netns $k"; done
    { iptables-save; ip6tables-save; } 2>/dev/null | grep -q '^:KUBE-' && echo "chains KUBE"
    { iptables-save; ip6tables-save; } 2>/dev/null | grep -q '^:CNI-' && echo "chains CNI"
    ls -d /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods >/dev/null 2>&1 && echo "cgroups kubepods"
  } >"$HOST_BEFORE" || true
}
had() { grep -qx "$*" "$HOST_BEFORE" 2>/dev/null; }

# drop_chains TOOL TABLE PATTERN: removes the jumps into the chains PATTERN
# matches, then the chains.
drop_chains() {
  local tool=$1 table=$2 pattern=$3 rule chain
  "$tool" -t "$table" -S 2>/dev/null | grep -E "^-A " | grep -vE "^-A ($pattern) " | grep -E -- "-j ($pattern)( |\$)" |
    sed 's/^-A/-D/' | while read -r rule; do eval "$tool -t $table $rule" 2>/dev/null || true; done || true
  for chain in $("$tool" -t "$table" -S 2>/dev/null | awk -v p="^($pattern)\$" '$1 == "-N" && $2 ~ p {print $2}'); do
    "$tool" -t "$table" -F "$chain" 2>/dev/null || true
  done
  for chain in $("$tool" -t "$table" -S 2>/dev/null | awk -v p="^($pattern)\$" '$1 == "-N" && $2 ~ p {print $2}'); do
    "$tool" -t "$table" -X "$chain" 2>/dev/null || true
  done
}

restore_host() {
  local kind a b tool table
  if [[ -f $HOST_BEFORE ]]; then
    while read -r kind a b; do [[ $kind == sysctl ]] && sysctl -qw "$a=$b" || true; done <"$HOST_BEFORE"
  fi
  for a in /var/run/netns/cni-*; do
    [[ -e $a ]] && ! had "netns $a" && { umount "$a" 2>/dev/null || true; rm -f "$a"; }
  done
  [[ -d /var/log/containers ]] && find /var/log/containers -maxdepth 1 -type l -lname "$STATE/*" -delete 2>/dev/null || true
  for a in $HOST_PATHS; do
    had "path $a" || rm -rf "$a"
  done
  for tool in iptables ip6tables; do
    for table in filter nat mangle; do
      had "chains KUBE" || drop_chains "$tool" "$table" 'KUBE-[A-Za-z0-9_-]+'
      had "chains CNI" || drop_chains "$tool" "$table" 'CNI-[A-Za-z0-9_-]+'
    done
  done
  rm -f "$HOST_BEFORE"
}

# ------------------------------------------------------------------ nodes
# The bridge this host reaches the nodes in namespaces of their own over;
# the API server listens on its address, so every node reaches it alike.
link_up() {
  ip link add "$LINK_BRIDGE" type bridge
  ip addr add "$APISERVER_IP/24" dev "$LINK_BRIDGE"
  ip link set "$LINK_BRIDGE" up
}

# netns_up I: node I's network namespace, on the bridge by a veth.
netns_up() {
  local ns; ns=$(node_netns "$1")
  ip netns add "$ns"
  ip link add "a2a-kube-n$1" type veth peer name eth0 netns "$ns"
  ip link set "a2a-kube-n$1" master "$LINK_BRIDGE" up
  ip -n "$ns" addr add "$(node_ip "$1")/24" dev eth0
  ip -n "$ns" link set lo up
  ip -n "$ns" link set eth0 up
  ip -n "$ns" route add default via "$APISERVER_IP"
  nsenter --net="/var/run/netns/$ns" sysctl -qw net.ipv4.ip_forward=1
}

# cgroup_root_up I: the cgroup node I's kubelet puts its pods under, which
# kubelet wants to exist in every hierarchy; a new cpuset has no CPUs or
# memory nodes until given its parent's.
cgroup_root_up() {
  local root h
  root=$(node_cgroup "$1")
  for h in /sys/fs/cgroup /sys/fs/cgroup/*; do
    [[ $(stat -fc %T "$h" 2>/dev/null) == cgroup* && -f $h/cgroup.procs ]] || continue
    [[ $h == /sys/fs/cgroup/unified ]] && continue
    mkdir -p "$h$root"
    if [[ -f $h/cpuset.cpus ]]; then
      cat "$h/cpuset.cpus" >"$h$root/cpuset.cpus"
      cat "$h/cpuset.mems" >"$h$root/cpuset.mems"
    fi
  done
}

start_kubelet() { # start_kubelet I
  local dir; dir=$(node_dir "$1")
  NETNS=$(node_netns "$1") daemon "kubelet-$1" "$BIN/kubelet" --config="$dir/kubelet.yaml" \
    --kubeconfig="$STATE/kubelet-$1.kubeconfig" --root-dir="$dir/kubelet" \
    --hostname-override="$(node_name "$1")" --node-ip="$(node_ip "$1")" --v=1
}

# start_node I: node I's containerd and kubelet, and its pods' network once
# the controller manager has given the node its pod CIDR.
start_node() {
  local i=$1 name dir cidr
  name=$(node_name "$i") dir=$(node_dir "$i")
  node_configs "$i"
  if [[ $i != 1 ]]; then netns_up "$i"; cgroup_root_up "$i"; fi
  NETNS=$(node_netns "$i") daemon "containerd-$i" "$BIN/containerd" --config "$dir/containerd/config.toml"
  until_ok 60 "the containerd of node $name" ctr --address "$(node_sock "$i")" version
  load_into "$i" "$IMAGES/pause.tar"
  # Mount propagation for pod volumes, without touching the host's own mounts.
  mount --bind "$dir/kubelet" "$dir/kubelet" && mount --make-rshared "$dir/kubelet"
  start_kubelet "$i"
  until_ok 120 "node $name to register and get its pod CIDR" node_has_cidr "$name"
  cidr=$(node_field "$name" '{.spec.podCIDR}')
  pod_network "$i" "$cidr"
  [[ $i == 1 ]] || ip route add "$cidr" via "$(node_ip "$i")"
}

# metrics_up: metrics-server, a process of this host's, behind the metrics
# API (metrics.k8s.io), so that autoscalers see the pods' CPU. The API
# server reaches it by the endpoints of a Service without a selector, which
# name this host.
metrics_up() {
  daemon metrics-server "$BIN/metrics-server" --bind-address="$APISERVER_IP" --secure-port="$METRICS_PORT" \
    --tls-cert-file="$PKI/metrics-server-serving.crt" --tls-private-key-file="$PKI/metrics-server-serving.key" \
    --kubeconfig="$STATE/metrics-server.kubeconfig" --authentication-kubeconfig="$STATE/metrics-server.kubeconfig" \
    --authorization-kubeconfig="$STATE/metrics-server.kubeconfig" --requestheader-client-ca-file="$PKI/front-proxy-ca.crt" \
    --kubelet-preferred-address-types=InternalIP --kubelet-certificate-authority="$PKI/ca.crt" --metric-resolution=15s
  kubectl --kubeconfig "$KUBECONFIG_FILE" apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Service
metadata: {name: metrics-server, namespace: kube-system}
spec:
  ports: [{name: https, port: 443, targetPort: $METRICS_PORT, protocol: TCP}]
---
apiVersion: v1
kind: Endpoints
metadata: {name: metrics-server, namespace: kube-system}
subsets:
- addresses: [{ip: "$APISERVER_IP"}]
  ports: [{name: https, port: $METRICS_PORT, protocol: TCP}]
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1beta1.metrics.k8s.io}
spec:
  group: metrics.k8s.io
  version: v1beta1
  service: {name: metrics-server, namespace: kube-system, port: 443}
  caBundle: $(base64 -w0 "$PKI/ca.crt")
  groupPriorityMinimum: 100
  versionPriority: 100
EOF
  until_ok 120 "the metrics API" kubectl --kubeconfig "$KUBECONFIG_FILE" get --raw /apis/metrics.k8s.io/v1beta1/nodes
}

# kubelet_ NODE stop|start: a node whose kubelet dies, as a node that is lost
# would, while its pods go on running; or its kubelet back.
kubelet_() {
  [[ $# == 2 ]] || usage
  [[ -f $RUN/up ]] || fail "the cluster is not up: run $0 up first"
  local i; i=$(node_of "$1")
  case $2 in
    stop) running "kubelet-$i" && kill -KILL "$(cat "$RUN/kubelet-$i.pid")"; rm -f "$RUN/kubelet-$i.pid" "$RUN/kubelet-$i.exe" ;;
    start) running "kubelet-$i" || start_kubelet "$i"; until_ok 120 "node $1 to be Ready" node_ready "$1" ;;
    *) usage ;;
  esac
}

# ----------------------------------------------------------------- up/down
up() {
  [[ $EUID == 0 ]] || fail "run as root: the node's containers need it"
  [[ -n $NODE_IP ]] || fail "cannot tell this host's address: set NODE_IP"
  [[ $NODES == 1 || $NODES == 2 ]] || fail "KUBE_NODES is $NODES: it may be 1 or 2"
  if [[ -f $RUN/up ]] && running kube-apiserver && running kubelet-1 && apiserver_ready; then
    echo "$KUBECONFIG_FILE"
    return 0
  fi
  [[ -d $STATE || -f $HOST_BEFORE ]] && { say "cleaning up after an earlier run"; down; }
  build
  local start=$SECONDS i
  mkdir -p "$RUN" "$LOGS"
  remember_host
  certificates
  link_up
  daemon etcd "$ETCD" --name=a2a-test --data-dir="$STATE/etcd" \
    --listen-client-urls="http://127.0.0.1:$ETCD_PORT" --advertise-client-urls="http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls="http://127.0.0.1:$((ETCD_PORT + 1))" --initial-advertise-peer-urls="http://127.0.0.1:$((ETCD_PORT + 1))" \
    --initial-cluster="a2a-test=http://127.0.0.1:$((ETCD_PORT + 1))" --log-outputs=stderr
  until_ok 60 etcd curl -sf "http://127.0.0.1:$ETCD_PORT/health"
  daemon kube-apiserver "$BIN/kube-apiserver" --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
    --bind-address="$APISERVER_IP" --advertise-address="$APISERVER_IP" --secure-port="$APISERVER_PORT" \
    --tls-cert-file="$PKI/apiserver.crt" --tls-private-key-file="$PKI/apiserver.key" --client-ca-file="$PKI/ca.crt" \
    --kubelet-client-certificate="$PKI/apiserver-kubelet-client.crt" --kubelet-client-key="$PKI/apiserver-kubelet-client.key" \
    --kubelet-certificate-authority="$PKI/ca.crt" --kubelet-preferred-address-types=InternalIP,Hostname \
    --service-account-issuer=https://kubernetes.default.svc --service-account-key-file="$PKI/service-accounts.pub" \
    --service-account-signing-key-file="$PKI/service-accounts.key" --service-cluster-ip-range="$SERVICE_CIDR" \
    --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction \
    --requestheader-client-ca-file="$PKI/front-proxy-ca.crt" --requestheader-allowed-names=front-proxy-client \
    --requestheader-username-headers=X-Remote-User --requestheader-group-headers=X-Remote-Group \
    --requestheader-extra-headers-prefix=X-Remote-Extra- --proxy-client-cert-file="$PKI/front-proxy-client.crt" \
    --proxy-client-key-file="$PKI/front-proxy-client.key" --enable-aggregator-routing=true --v=1
  until_ok 120 kube-apiserver apiserver_ready
  # A node whose kubelet stops answering is marked unreachable after 20 s
  # rather than 50, so that the tests of a lost node need not wait as long.
  daemon kube-controller-manager "$BIN/kube-controller-manager" --kubeconfig="$STATE/controller-manager.kubeconfig" \
    --secure-port=0 --leader-elect=false --use-service-account-credentials=true \
    --service-account-private-key-file="$PKI/service-accounts.key" --root-ca-file="$PKI/ca.crt" \
    --allocate-node-cidrs=true --cluster-cidr="$CLUSTER_CIDR" --node-cidr-mask-size=24 --service-cluster-ip-range="$SERVICE_CIDR" \
    --node-monitor-grace-period=20s --v=1
  daemon kube-scheduler "$BIN/kube-scheduler" --kubeconfig="$STATE/scheduler.kubeconfig" --secure-port=0 --leader-elect=false --v=1
  for i in $(nodes); do start_node "$i"; done
  for i in $(nodes); do until_ok 180 "node $(node_name "$i") to be Ready" node_ready "$(node_name "$i")"; done
  metrics_up
  until_ok 60 "the default service account" kubectl --kubeconfig "$KUBECONFIG_FILE" get serviceaccount default
  touch "$RUN/up"
  say "up in $((SECONDS - start))s, $NODES node(s)"
  echo "$KUBECONFIG_FILE"
}

# named PATTERN: the daemons of the run dir whose names match PATTERN.
named() {
  local f
  for f in "$RUN"/$1.pid; do [[ -f $f ]] && basename "$f" .pid; done
}

down() {
  [[ $EUID == 0 ]] || fail "run as root"
  [[ -d $STATE || -f $HOST_BEFORE ]] || { say "nothing is up"; return 0; }
  local start=$SECONDS pid cmd mount group name sock ns
  mkdir -p "$RUN"
  # shellcheck disable=SC2046 # one name a word
  halt 30 metrics-server kube-controller-manager kube-scheduler $(named 'kubelet-*')
  # Pods removed through the runtime, so that CNI releases their addresses and rules.
  for name in $(named 'containerd-*'); do
    sock=$(node_sock "${name#containerd-}")
    running "$name" || continue
    timeout 90 crictl --runtime-endpoint "unix://$sock" --timeout 60s rmp --all --force >/dev/null 2>&1 || say "could not remove every pod of $name (continuing)"
  done
  # shellcheck disable=SC2046
  halt 20 $(named 'containerd-*')
  # Shims outlive containerd; ours name our sockets.
  for pid in /proc/[0-9]*; do
    cmd=$( { tr '\0' ' ' <"$pid/cmdline"; } 2>/dev/null) || continue
    [[ $cmd == *containerd-shim-runc-v2*"-address $STATE/"* ]] && kill -KILL "${pid#/proc/}" 2>/dev/null || true
  done
  # The first node's pods are under kubepods (unless the host had one of its
  # own), the others' under their node's root.
  local groups=(/sys/fs/cgroup/*/a2a-kube-node* /sys/fs/cgroup/a2a-kube-node*)
  had "cgroups kubepods" || groups+=(/sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods)
  for group in "${groups[@]}"; do
    [[ -d $group ]] || continue
    for pid in $(find "$group" -name cgroup.procs -exec cat {} + 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
  done
  sleep 0.5
  for group in "${groups[@]}"; do
    [[ -d $group ]] && find "$group" -depth -type d -exec rmdir {} \; 2>/dev/null || true
  done
  halt 20 kube-apiserver etcd
  awk -v s="$STATE/" 'index($5, s) == 1 {print $5}' /proc/self/mountinfo | sort -r | while read -r mount; do
    umount "$mount" 2>/dev/null || umount -l "$mount" 2>/dev/null || true
  done
  # A namespace takes its veth, bridge and rules with it.
  for ns in /var/run/netns/a2a-kube-node*; do [[ -e $ns ]] && ip netns del "${ns##*/}"; done
  for name in $(ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | grep -E '^(a2a-pods[0-9]+|a2a-kube-n[0-9]+)$'); do
    ip link del "$name" 2>/dev/null || true
  done
  ip link show "$LINK_BRIDGE" >/dev/null 2>&1 && ip link del "$LINK_BRIDGE" || true
  restore_host
  rm -rf "$STATE" "$SHIM_DIR"
  say "down in $((SECONDS - start))s"
}

status() {
  local c
  for c in etcd kube-apiserver kube-controller-manager kube-scheduler metrics-server $(for i in $(nodes); do echo "containerd-$i kubelet-$i"; done); do
    if running "$c"; then echo "$c: running (pid $(cat "$RUN/$c.pid"))"; else echo "$c: stopped"; fi
  done
  apiserver_ready && kubectl --kubeconfig "$KUBECONFIG_FILE" get nodes -o wide || true
}

kubectl_() {
  [[ -f $RUN/up ]] || fail "the cluster is not up: run $0 up first"
  exec kubectl --kubeconfig "$KUBECONFIG_FILE" "$@"
}

env_() {
  [[ -f $RUN/up ]] || fail "the cluster is not up: run $0 up first"
  echo "export KUBECONFIG=$KUBECONFIG_FILE"
}

usage() {
  echo "usage: $0 up | build | down | env | status | kubelet NODE stop|start | kubectl ARGS... | load IMAGE_TAR | image REF HOST OUT_TAR | bundle REF OUT_TAR PATH=FILE..." >&2
  exit 2
}

case ${1:-} in
  up) up ;;
  build) build ;;
  down) down ;;
  env) env_ ;;
  status) status ;;
  kubelet) shift; kubelet_ "$@" ;;
  kubectl) shift; kubectl_ "$@" ;;
  load) shift; load "$@" ;;
  image) shift; image "$@" ;;
  bundle) shift; bundle "$@" ;;
  *) usage ;;
esac
