package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strconv"
)

// usage is printed for --help and after a bad argument.
const usage = `usage: replica --target URL --endpoint-id ID --events N --policy FILE
               [--concurrency C (8)] [--redis redis://host:port/db] [--deadline-ms N]
Delivers N events to URL through the policy (class "storm" of FILE) until
each stops, then prints one JSON line on stdout. Exit 0, or 2 on bad arguments.`

// Config is what the flags ask for.
type Config struct {
	Target      string
	EndpointID  string
	Events      uint64
	Concurrency int
	PolicyPath  string
	Class       string
	RedisURL    string // "" = in-memory counter
	DeadlineMs  int64  // < 0 = none
}

// errUsage marks an argument error (exit 2).
type errUsage struct{ msg string }

func (e errUsage) Error() string { return e.msg }

func usageErrorf(format string, a ...any) error { return errUsage{fmt.Sprintf(format, a...)} }

// parseArgs reads the REPLICA flags. flag.ErrHelp is returned for --help.
func parseArgs(args []string, stderr io.Writer) (Config, error) {
	cfg := Config{Class: "storm", DeadlineMs: -1}
	fs := flag.NewFlagSet("replica", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var events, concurrency, deadline string
	fs.StringVar(&cfg.Target, "target", "", "")
	fs.StringVar(&cfg.EndpointID, "endpoint-id", "", "")
	fs.StringVar(&events, "events", "", "")
	fs.StringVar(&concurrency, "concurrency", "8", "")
	fs.StringVar(&cfg.PolicyPath, "policy", "", "")
	fs.StringVar(&cfg.RedisURL, "redis", "", "")
	fs.StringVar(&deadline, "deadline-ms", "", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, usage)
			return cfg, err
		}
		return cfg, usageErrorf("%v", err)
	}
	if fs.NArg() > 0 {
		return cfg, usageErrorf("unexpected argument %q", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, name := range []string{"target", "endpoint-id", "events", "policy"} {
		if !set[name] {
			return cfg, usageErrorf("--%s is required", name)
		}
	}
	u, err := url.Parse(cfg.Target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return cfg, usageErrorf("--target %q: want an http:// or https:// URL", cfg.Target)
	}
	if cfg.EndpointID == "" {
		return cfg, usageErrorf("--endpoint-id must not be empty")
	}
	if cfg.Events, err = strconv.ParseUint(events, 10, 64); err != nil {
		return cfg, usageErrorf("--events %q: want a whole number", events)
	}
	c, err := strconv.ParseUint(concurrency, 10, 16)
	if err != nil || c == 0 {
		return cfg, usageErrorf("--concurrency %q: want a whole number from 1 to 65535", concurrency)
	}
	cfg.Concurrency = int(c)
	if cfg.PolicyPath == "" {
		return cfg, usageErrorf("--policy must name a file")
	}
	if set["redis"] {
		if u, err := url.Parse(cfg.RedisURL); err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") {
			return cfg, usageErrorf("--redis %q: want redis://host:port/db", cfg.RedisURL)
		}
	}
	if set["deadline-ms"] {
		d, err := strconv.ParseUint(deadline, 10, 62)
		if err != nil {
			return cfg, usageErrorf("--deadline-ms %q: want a whole number of milliseconds", deadline)
		}
		cfg.DeadlineMs = int64(d)
	}
	return cfg, nil
}
