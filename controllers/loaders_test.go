package controllers_test

import (
	"context"
	"strconv"
	"strings"

	"k8s.io/client-go/rest"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/loader"
	"github.com/mongobench/mongobench/internal/loader/k8sresult"
	"github.com/mongobench/mongobench/internal/testutil/syncbuf"
)

// Real loaders in this process, the test playing the kubelet: loader.Main
// with the Job's own command line, the pod's environment and a result
// writer to this API server.

// loaderArgs is the command line of Job jobName's loaders as they run
// here: mongodb.url is url (the stub server's), and every loader serves
// its metrics on a port of its own, since the loaders share this process.
func (k *cluster) loaderArgs(jobName, url string) []string {
	k.t.Helper()
	job := k.job(jobName)
	args := append([]string(nil), job.Spec.Template.Spec.Containers[0].Args...)
	for i, a := range args {
		if strings.HasPrefix(a, "mongodb.url=") {
			args[i] = "mongodb.url=" + url
		}
		if a == "--"+contract.FlagMetricsAddr && i+1 < len(args) {
			args[i+1] = "127.0.0.1:0"
		}
	}
	return args
}

// runLoader runs loader i of Job jobName with args until it exits, its
// stderr into log, and returns its exit code. Safe to call from several
// goroutines at once.
func (k *cluster) runLoader(jobName string, i int, args []string, log *syncbuf.Buffer) int {
	hc, err := rest.HTTPClientFor(env.Config)
	if err != nil {
		_, _ = log.Write([]byte("rest client: " + err.Error() + "\n"))
		return -1
	}
	newWriter := func() (*k8sresult.Writer, error) { return k8sresult.New(env.Config.Host, hc, ""), nil }
	podEnv := map[string]string{"POD_NAMESPACE": k.ns, "POD_NAME": jobName + "-" + strconv.Itoa(i) + "-abcde", "JOB_COMPLETION_INDEX": strconv.Itoa(i)}
	return loader.Main(context.Background(), append(append([]string(nil), args...), "--termination-log", k.t.TempDir()+"/log"), loader.Env{
		Stdout: &syncbuf.Buffer{}, Stderr: log, Getenv: func(k string) string { return podEnv[k] }, Version: "test",
		NewResultWriter: newWriter,
	})
}
