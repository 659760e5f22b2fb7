package mlflow_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/retrievalbench/retrievalbench/internal/mlflowtest"
	"github.com/retrievalbench/retrievalbench/mlflow"
)

func TestKey(t *testing.T) {
	for in, want := range map[string]string{"ndcg@10": "ndcg_at_10", "pass@1-needle": "pass_at_1-needle", "map": "map", "x:y": "x_y"} {
		if got := mlflow.Key(in); got != want {
			t.Errorf("Key(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRedact(t *testing.T) {
	if got := mlflow.Redact("http://user:s3cret@host:5000/x"); strings.Contains(got, "s3cret") || got != "http://host:5000/x" {
		t.Errorf("Redact = %q", got)
	}
	if _, err := mlflow.New(mlflow.Config{TrackingURI: "file:///tmp/mlruns"}); err == nil {
		t.Error("New accepted a file: tracking URI, which has no REST API")
	}
}

// TestServer runs the client against a real MLflow tracking server.
func TestServer(t *testing.T) {
	uri := mlflowtest.Start(t)
	c, err := mlflow.New(mlflow.Config{TrackingURI: uri})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	exp, err := c.ExperimentID(ctx, "client-test")
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.ExperimentID(ctx, "client-test")
	if err != nil || again != exp {
		t.Errorf("second ExperimentID = %q, %v; want the same id %q", again, err, exp)
	}
	run, err := c.CreateRun(ctx, exp, "r1", time.Now(), []mlflow.Tag{{Key: "commit", Value: "abc"}})
	if err != nil {
		t.Fatal(err)
	}
	// More params than one batch holds, to cross the 100-param limit.
	var params []mlflow.Param
	for i := range 130 {
		params = append(params, mlflow.Param{Key: "p" + string(rune('a'+i/26)) + string(rune('a'+i%26)), Value: "v"})
	}
	if err := c.LogBatch(ctx, run.RunID, params, []mlflow.Metric{{Key: mlflow.Key("ndcg@10"), Value: 0.5, Timestamp: 1}}, nil); err != nil {
		t.Fatal(err)
	}
	data := []byte("{\"task\":\"t1\"}\n")
	if err := c.UploadArtifact(ctx, run, "results/x.jsonl", data); err != nil {
		t.Fatal(err)
	}
	if err := c.EndRun(ctx, run.RunID, "FINISHED", time.Now()); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetRun(ctx, run.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Info.Status != "FINISHED" || len(got.Data.Params) != 130 || len(got.Data.Metrics) != 1 || got.Data.Metrics[0].Value != 0.5 {
		t.Errorf("run read back: status %s, %d params, metrics %+v; want FINISHED, 130, ndcg_at_10=0.5", got.Info.Status, len(got.Data.Params), got.Data.Metrics)
	}
	back, err := c.DownloadArtifact(ctx, run, "results/x.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(data), string(back)); diff != "" {
		t.Errorf("artifact round trip (-want +got):\n%s", diff)
	}
	if _, err := c.GetRun(ctx, "0123456789abcdef0123456789abcdef"); !errors.Is(err, mlflow.ErrNotFound) {
		t.Errorf("GetRun of an unknown run: %v, want ErrNotFound", err)
	}
}
