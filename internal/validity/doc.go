// Package validity decides whether a finished run measured what it says:
// the database under the run's settings, and not a restarted process, an
// election, a cache of another size, a server out of connections, or its
// own loaders. It is pure: a run's spec and status in, problems out. The
// run reconciler turns them into the Valid condition; sweeps and the
// regression gate read that condition.
package validity
