package supervisor

import "github.com/prometheus/client_golang/prometheus"

// Collector returns Prometheus metrics of h's plugins, read at each
// collection: restarts, hangs found, and whether each is ready.
func Collector(h *Supervisor) prometheus.Collector { return collector{h} }

type collector struct{ h *Supervisor }

var (
	restartsDesc = prometheus.NewDesc("sokod_plugin_restarts_total", "Plugin processes started again after a failure.", []string{"plugin"}, nil)
	hangsDesc    = prometheus.NewDesc("sokod_plugin_hangs_total", "Plugin failures that were hangs: a call past its timeout, or no answer to the health check.", []string{"plugin"}, nil)
	readyDesc    = prometheus.NewDesc("sokod_plugin_ready", "1 when the plugin answers calls, else 0; state names where it is.", []string{"plugin", "state"}, nil)
)

func (collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- restartsDesc
	ch <- hangsDesc
	ch <- readyDesc
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	for _, p := range c.h.Plugins() {
		if p.ShadowedBy() != "" {
			continue // never started; its name is the one in use's
		}
		st := p.Status()
		ch <- prometheus.MustNewConstMetric(restartsDesc, prometheus.CounterValue, float64(max(st.Starts-1, 0)), p.Name())
		ch <- prometheus.MustNewConstMetric(hangsDesc, prometheus.CounterValue, float64(st.Hangs), p.Name())
		ready := 0.0
		if st.State == StateReady {
			ready = 1
		}
		ch <- prometheus.MustNewConstMetric(readyDesc, prometheus.GaugeValue, ready, p.Name(), string(st.State))
	}
}
