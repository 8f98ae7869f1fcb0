// Package agenthost is the built-in agent host behind
// `a2a-agent-host --config agent.toml`: it serves the agent card derived
// from the config and answers A2A JSON-RPC with the configured handler,
// using the official A2A Go SDK.
package agenthost

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/launch"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/writeonly"
)

// Exit statuses of Main.
const (
	exitOK      = 0
	exitFailure = 1 // the host could not run: a port in use, a failed listener
	exitUsage   = 2 // bad flags or a bad agent config: nothing to retry until it is fixed
)

// Main runs the agent host of release version with the command line's
// arguments and returns the process exit code. It serves until SIGTERM or
// SIGINT, then shuts down gracefully and returns 0. The lone argument
// launch.VersionArg prints version instead.
func Main(version string, args []string) int {
	if len(args) == 1 && args[0] == launch.VersionArg {
		_, _ = fmt.Println(version)
		return exitOK
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	return run(ctx, version, args, os.Stdout, os.Stderr)
}

func run(ctx context.Context, version string, args []string, stdout, stderr io.Writer) int {
	secrets := &expansionRecorder{}
	cfg, err := configure(version, args, stderr, secrets)
	redact := secrets.redactor()
	fail := func(code int, format string, a ...any) int {
		_, _ = fmt.Fprintln(stderr, redact.String(fmt.Sprintf("agent host: "+format, a...)))
		return code
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	err = Serve(ctx, cfg, Options{Log: stdout, Redact: redact, Version: version})
	var cfgErr *configError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &cfgErr):
		return fail(exitUsage, "%v", err)
	default:
		return fail(exitFailure, "%v", err)
	}
}

// configure reads the flags, refuses a provider of another release than
// version, reads the agent config the flags name, expands variables through
// secrets (the write-only values, then this process's environment), which
// remembers them for redaction, and applies the flag overrides.
func configure(version string, args []string, stderr io.Writer, secrets *expansionRecorder) (*agentconfig.Config, error) {
	fs := flag.NewFlagSet(launch.HostExecutable, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported as one line by the caller
	configFile := fs.String(launch.ConfigFlag, "", "read the agent config (TOML) from `file`")
	configEnv := fs.String(launch.ConfigEnvFlag, "", "read the agent config (TOML) from the environment variable `NAME`")
	host := fs.String(launch.HostFlag, "", "listen on `host`, overriding [server] host")
	port := fs.Int(launch.PortFlag, 0, "listen on `port`, overriding [server] http_port; 0 picks a free port")
	advertisedURL := fs.String(launch.AdvertisedURLFlag, "", "advertise `URL` as the endpoint, overriding [server] advertised_url")
	writeOnlyFile := fs.String(launch.WriteOnlyFileFlag, "",
		"read variables for ${VAR} from `file` (a JSON object of names to values), ahead of the environment")
	providerVersion := fs.String(launch.ProviderVersionFlag, "",
		"refuse to serve unless this host is of `release`, that of the provider starting it")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			_, _ = fmt.Fprintf(stderr, "Usage: %[1]s (--config FILE | --config-env NAME) [flags]\n       %[1]s %[2]s\n", fs.Name(), launch.VersionArg)
			fs.PrintDefaults()
			return nil, err
		}
		return nil, fmt.Errorf("%w (see --help)", err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (see --help)", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set[launch.ProviderVersionFlag] && *providerVersion != version {
		return nil, releaseMismatch(version, *providerVersion)
	}

	source, raw, err := readConfig(*configFile, *configEnv, set[launch.ConfigFlag], set[launch.ConfigEnvFlag])
	if err != nil {
		return nil, err
	}
	cfg, err := agentconfig.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	writtenToken, writtenStore := cfg.Auth.BearerToken, cfg.Tasks.Store
	if *writeOnlyFile != "" {
		values, err := writeonly.Read(*writeOnlyFile)
		if err != nil {
			return nil, err
		}
		secrets.preferred = values
	}
	if err := cfg.Expand(secrets.lookup); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if err := checkBearerToken(writtenToken, cfg.Auth.BearerToken); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if err := checkNotEmptied("[tasks] store", writtenStore, cfg.Tasks.Store, "an empty connection string, which would keep the tasks "+
		"in this host's memory, unseen by the agent's other replicas", "the connection string", "remove store to keep tasks in memory"); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if set[launch.HostFlag] {
		cfg.Server.Host = *host
	}
	if set[launch.PortFlag] {
		if *port < 0 || *port > 65535 {
			return nil, fmt.Errorf("--port %d is not a TCP port (0-65535; 0 picks a free port)", *port)
		}
		cfg.Server.HTTPPort = *port
	}
	if set[launch.AdvertisedURLFlag] {
		cfg.Server.AdvertisedURL = *advertisedURL
	}
	return cfg, nil
}

// readConfig returns the raw config and a name for where it came from.
func readConfig(file, envName string, fromFile, fromEnv bool) (string, []byte, error) {
	switch {
	case fromFile == fromEnv:
		return "", nil, errors.New("give exactly one of --config FILE or --config-env NAME")
	case fromFile:
		raw, err := os.ReadFile(file)
		if err != nil {
			return "", nil, fmt.Errorf("read agent config: %w", err)
		}
		return file, raw, nil
	default:
		raw, ok := os.LookupEnv(envName)
		if !ok {
			return "", nil, fmt.Errorf("environment variable %q named by --config-env is not set", envName)
		}
		return "$" + envName, []byte(raw), nil
	}
}

// releaseMismatch is the refusal of a provider of another release: the two
// share the agent config's reading and this command line, which may change
// from one release to the next.
func releaseMismatch(host, provider string) error {
	return fmt.Errorf("this %[1]s is of release %[2]q and the provider starting it of release %[3]q, and a host "+
		"and a provider of different releases are never mixed: run agents with the %[1]s of release %[3]q, which "+
		"that release's archive holds beside the provider (for the container adapter, remove base_image or set it "+
		"to an image built from that host; for the kubernetes adapter, set base_image to such an image)", launch.HostExecutable, host, provider)
}
