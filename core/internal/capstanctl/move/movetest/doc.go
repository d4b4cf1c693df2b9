// Package movetest runs `capstanctl move` against two real kube-apiservers (envtest), a
// source and a target management cluster, each holding every provider's CRDs from the
// components capstanctl init installs (and the source also contracts' generic test
// providers, which the target lacks on purpose). No controller runs in either: the tests
// write the status a provider would, so what moves is exactly what the test wrote. It
// holds tests only, apart from the cmd and move packages' suites, which need one API
// server or none.
package movetest
