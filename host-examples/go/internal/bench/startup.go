package bench

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// mainModule is the embedded artifact's main core module.
func mainModule(b *testing.B) []byte {
	m, err := rp.MainModule(rp.EmbeddedArtifact())
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// Compile: wazero compiling the embedded artifact's main core module
// (fresh runtime, no cache).
func Compile(b *testing.B) {
	ctx := context.Background()
	module := mainModule(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		rt := wazero.NewRuntime(ctx)
		if _, err := rt.CompileModule(ctx, module); err != nil {
			b.Fatal(err)
		}
		_ = rt.Close(ctx)
	}
}

// Instantiate: one more instance of the compiled module (what the pool
// pays when every instance is busy), closed again. The imports are no-op
// host functions with the signatures the module declares.
func Instantiate(b *testing.B) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	compiled, err := rt.CompileModule(ctx, mainModule(b))
	if err != nil {
		b.Fatal(err)
	}
	builders := map[string]wazero.HostModuleBuilder{}
	noop := api.GoModuleFunc(func(context.Context, api.Module, []uint64) {})
	for _, f := range compiled.ImportedFunctions() {
		mod, name, _ := f.Import()
		if builders[mod] == nil {
			builders[mod] = rt.NewHostModuleBuilder(mod)
		}
		builders[mod].NewFunctionBuilder().WithGoModuleFunction(noop, f.ParamTypes(), f.ResultTypes()).Export(name)
	}
	for _, hb := range builders {
		if _, err := hb.Instantiate(ctx); err != nil {
			b.Fatal(err)
		}
	}
	cfg := wazero.NewModuleConfig().WithName("").WithStartFunctions()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		mod, err := rt.InstantiateModule(ctx, compiled, cfg)
		if err != nil {
			b.Fatal(err)
		}
		_ = mod.Close(ctx)
	}
}

// NewEngine: rp.New end to end (read and check the artifact, imports,
// compile, first instance, ABI check, self-test) and Close.
func NewEngine(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		e, err := rp.New(ctx)
		if err != nil {
			b.Fatal(err)
		}
		_ = e.Close(ctx)
	}
}

// LoopbackPOST: one webhook-sized POST over net/http to a server on
// 127.0.0.1 (keep-alive), the cost a dispatcher pays per attempt at best.
func LoopbackPOST(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	client := srv.Client()
	body := `{"event_id":"evt_01HZX3K9Q2","type":"invoice.paid","data":{"id":"in_1","amount":4200}}`
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resp, err := client.Post(srv.URL+"/hook", "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
}
