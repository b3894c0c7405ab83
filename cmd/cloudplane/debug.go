package main

import (
	"database/sql"
	"expvar"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"sync"
	"time"

	"cloudplane/models/database"
)

// serveDebug serves net/http/pprof, and expvar's /debug/vars with the
// database pool's statistics (waits for a connection show there) and the
// memory SQLite and malloc hold (c_memory), on its
// own listener, apart from the API so that they are never reachable
// through the public port. It is off unless --debug-addr is given; bind it
// to loopback.
func serveDebug(ln net.Listener, db *sql.DB, writer func() (database.WriterStatistics, bool), log *slog.Logger) *http.Server {
	publishDBStats.Do(func() {
		expvar.Publish("database", expvar.Func(func() any { return db.Stats() }))
		// On SQLite, writes go through a connection of their own.
		expvar.Publish("database_writer", expvar.Func(func() any {
			if stats, ok := writer(); ok {
				return stats
			}
			return nil
		}))
		expvar.Publish("c_memory", expvar.Func(func() any { return readCMemory() }))
	})
	mux := http.NewServeMux()
	mux.Handle("/debug/vars", expvar.Handler())
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := serveAside(ln, "/debug/", mux, log)
	log.Info("pprof listening", "addr", "http://"+ln.Addr().String()+"/debug/pprof/")
	return srv
}

// serveAside serves h under path on ln, a listener apart from the API's,
// until the returned server is closed.
func serveAside(ln net.Listener, path string, h http.Handler, log *slog.Logger) *http.Server {
	mux := http.NewServeMux()
	mux.Handle(path, h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
			log.Error("listener stopped", "addr", ln.Addr().String(), "err", err)
		}
	}()
	return srv
}

// publishDBStats publishes once: expvar names are process-wide.
var publishDBStats sync.Once
