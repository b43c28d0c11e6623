package controllers

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/sweep"
)

// BenchmarkSweepReconciler runs a study: it expands a sweep into cells,
// has the API server validate every cell, creates the child runs as
// parallelism allows and aggregates their results. It reads the children's
// status and never edits them; the BenchmarkRun controller runs them.
type BenchmarkSweepReconciler struct {
	client.Client
	// APIReader reads the sweep and lists its children uncached: a child
	// created a moment ago must count against parallelism even before the
	// cache has seen it.
	APIReader client.Reader
	Scheme    *runtime.Scheme
	Recorder  events.EventRecorder
	Clock     clock.PassiveClock
	// Seed draws the seed of a Shuffled sweep that has none (tests fix it).
	Seed func() int64
	// MaxConcurrentReconciles bounds how many sweeps are reconciled at once.
	MaxConcurrentReconciles int
}

// +kubebuilder:rbac:groups=bench.mongobench.io,resources=benchmarksweeps,verbs=get;list;watch;delete
// +kubebuilder:rbac:groups=bench.mongobench.io,resources=benchmarksweeps/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=bench.mongobench.io,resources=benchmarksweeps/finalizers,verbs=update
// +kubebuilder:rbac:groups=bench.mongobench.io,resources=benchmarkruns,verbs=get;list;watch;create
// +kubebuilder:rbac:groups="",resources=nodes,verbs=list

// sweepState is what one reconcile of a sweep knows and decides; the
// status kit keeps its conditions, events and time.
type sweepState struct {
	statusKit[*benchv1.BenchmarkSweep]
	sweep *benchv1.BenchmarkSweep
	axes  []sweep.Axis
	cells []sweep.Cell
	plan  []sweep.Planned
	runs  map[string]*benchv1.BenchmarkRun
	// conflict names a planned run whose name a stranger's run holds.
	conflict string
	// waiting names planned runs still held by a deleted predecessor (a
	// terminating run, or one of an earlier sweep of the same name).
	waiting []string
	// requeue asks for another reconcile after this long (0: none).
	requeue time.Duration
}

// end moves the sweep to a final phase with its conditions.
func (s *sweepState) end(phase benchv1.SweepLifecycle, reason benchv1.Reason, message string) {
	st := &s.sweep.Status
	st.Phase = phase
	st.CompletionTime = ptr.To(metav1.NewTime(s.now))
	if phase == benchv1.SweepFailed {
		s.setCondition(benchv1.ConditionComplete, metav1.ConditionFalse, reason, "the sweep did not complete")
		s.setCondition(benchv1.ConditionFailed, metav1.ConditionTrue, reason, message)
		s.warnf(reason, "%s", message)
		return
	}
	s.setCondition(benchv1.ConditionComplete, metav1.ConditionTrue, reason, message)
	s.setCondition(benchv1.ConditionFailed, metav1.ConditionFalse, reason, "the sweep did not fail")
	s.eventf(reason, "%s", message)
}

// Reconcile derives the sweep's status from its children and creates the
// next children, patching status once at the end.
func (r *BenchmarkSweepReconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, retErr error) {
	// Read uncached: a cached copy that lacks the status stored a moment
	// ago (the order, the seed) would make decisions the stored status
	// contradicts, e.g. create runs in another order.
	sw := &benchv1.BenchmarkSweep{}
	if err := r.APIReader.Get(ctx, req.NamespacedName, sw); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !sw.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil // owner references delete the children
	}
	if sweep.Terminal(sw.Status.Phase) {
		return ctrl.Result{}, nil
	}
	s := &sweepState{statusKit: newStatusKit(sw, r.Clock.Now()), sweep: sw}
	// One status patch, at the end; events only after it is stored.
	defer func() { res, retErr = s.patchStatus(ctx, r.Client, r.Recorder, res, retErr) }()

	for _, st := range []func(context.Context, *sweepState) (bool, error){
		r.expand, r.start, r.observe, r.validate, r.aggregate, r.createRuns, r.finish,
	} {
		proceed, err := st(ctx, s)
		if err != nil {
			return ctrl.Result{}, err
		}
		if !proceed {
			break
		}
	}
	return ctrl.Result{RequeueAfter: s.requeue}, nil
}

// expand computes the cells. A sweep that cannot be expanded fails at once,
// before anything exists.
func (r *BenchmarkSweepReconciler) expand(_ context.Context, s *sweepState) (bool, error) {
	axes, cells, err := sweep.Expand(&s.sweep.Spec)
	if err != nil {
		s.end(benchv1.SweepFailed, benchv1.ReasonInvalidSweep, "invalid sweep: "+err.Error())
		return false, nil //nolint:nilerr // the error is the sweep's Failed condition, not a reconcile error
	}
	s.axes, s.cells = axes, cells
	return true, nil
}

// start stamps the sweep and plans its order (and the seed of a shuffled
// one). The plan is stored together with phase Running before the first
// run is created, and never changes after: a restarted manager follows
// the same order.
func (r *BenchmarkSweepReconciler) start(_ context.Context, s *sweepState) (bool, error) {
	st := &s.sweep.Status
	spec := &s.sweep.Spec
	reps := int(max(spec.Repetitions, 1))
	if st.StartTime == nil {
		st.StartTime = ptr.To(metav1.NewTime(s.now))
		st.Phase = benchv1.SweepPending
		s.setCondition(benchv1.ConditionComplete, metav1.ConditionFalse, benchv1.ReasonRunning, "the sweep has not finished")
		s.setCondition(benchv1.ConditionFailed, metav1.ConditionFalse, benchv1.ReasonRunning, "the sweep has not failed")
	}
	if st.Phase == benchv1.SweepPending {
		// Nothing exists yet (Running is stored before the first run is
		// created), and the spec may still change: plan from the current
		// spec. A drawn seed stays, so the order shown does not flicker.
		var seed int64
		st.Order = nil
		if spec.Order != benchv1.SweepShuffled {
			st.Seed = nil
		} else {
			switch {
			case spec.Seed != nil:
				seed = *spec.Seed
			case st.Seed != nil:
				seed = *st.Seed
			default:
				seed = r.drawSeed()
			}
			st.Seed = ptr.To(seed)
		}
		for _, p := range sweep.Plan(s.sweep.Name, len(s.cells), reps, spec.Order, seed) {
			st.Order = append(st.Order, p.Name)
		}
	}
	plan, err := sweep.PlanFromOrder(s.sweep.Name, len(s.cells), reps, st.Order)
	if err != nil {
		// Only a hand-edited status gets here.
		s.end(benchv1.SweepFailed, benchv1.ReasonInvalidSweep, "invalid sweep: "+err.Error())
		return false, nil //nolint:nilerr // the error is the sweep's Failed condition, not a reconcile error
	}
	s.plan = plan
	st.CellsTotal = int32(len(s.cells))
	return true, nil
}

func (r *BenchmarkSweepReconciler) drawSeed() int64 {
	if r.Seed != nil {
		return r.Seed()
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return r.Clock.Now().UnixNano()
	}
	// Non-negative, so it reads well in YAML and round-trips through any tool.
	return int64(binary.LittleEndian.Uint64(b[:]) >> 1)
}

// validate has the API server check every cell's run with a server-side
// dry run (CEL rules, defaults, schema) before the first run is created:
// one invalid cell fails the sweep with the cell's name and the server's
// message, and nothing is created. Then every cell's run, as the API
// server defaulted it, goes through the run's pre-flight check
// (checkCapacity). The repetitions of a cell share its spec, so one dry
// run and one check per cell suffice.
func (r *BenchmarkSweepReconciler) validate(ctx context.Context, s *sweepState) (bool, error) {
	if c := meta.FindStatusCondition(s.sweep.Status.Conditions, benchv1.ConditionValidated); c != nil &&
		c.Status == metav1.ConditionTrue && c.ObservedGeneration == s.sweep.Generation {
		return true, nil
	}
	if err := sweep.CheckSize(&s.sweep.Spec, s.axes, s.cells); err != nil {
		s.end(benchv1.SweepFailed, benchv1.ReasonInvalidSweep, "invalid sweep: "+err.Error())
		return false, nil //nolint:nilerr // the error is the sweep's Failed condition, not a reconcile error
	}
	var dryRuns []cellRun
	for i := range s.cells {
		c := &s.cells[i]
		run, err := r.childRun(s.sweep, c, 1)
		if err != nil {
			return false, err
		}
		if s.runs[run.Name] != nil {
			continue // created, so validated when it was
		}
		err = r.Create(ctx, run, client.DryRunAll)
		switch {
		case err == nil:
			dryRuns = append(dryRuns, cellRun{cell: c, run: run})
		case apierrors.IsAlreadyExists(err):
			if err := r.taken(ctx, s, run.Name); err != nil {
				return false, err
			}
		case apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) || apierrors.IsForbidden(err):
			// Forbidden: an admission webhook or a quota refused the run.
			s.end(benchv1.SweepFailed, benchv1.ReasonInvalidCell,
				fmt.Sprintf("cell %d (%s) is not a valid BenchmarkRun; nothing was created: %s", c.Index, c.Describe(), err))
			return false, nil
		default:
			s.setCondition(benchv1.ConditionValidated, metav1.ConditionFalse, benchv1.ReasonValidating,
				fmt.Sprintf("cannot dry-run cell %d (%s), retrying: %s", c.Index, c.Describe(), err))
			return false, fmt.Errorf("dry-run cell %d (%s): %w", c.Index, c.Describe(), err)
		}
	}
	fits, ok, err := r.checkCapacity(ctx, s, dryRuns)
	if !ok || err != nil {
		return false, err
	}
	if len(s.waiting) > 0 && s.sweep.Status.Phase == benchv1.SweepPending {
		s.setCondition(benchv1.ConditionValidated, metav1.ConditionFalse, benchv1.ReasonWaitingForOldRuns,
			fmt.Sprintf("waiting for %s of a deleted sweep of the same name to go", strings.Join(s.waiting, ", ")))
		return false, nil
	}
	s.setCondition(benchv1.ConditionValidated, metav1.ConditionTrue, benchv1.ReasonValid,
		fmt.Sprintf("the API server accepts all %d cells%s", len(s.cells), fits))
	return true, nil
}

// cellRun is a cell's run as the API server's dry run returned it.
type cellRun struct {
	cell *sweep.Cell
	run  *benchv1.BenchmarkRun
}

// checkCapacity runs each cell's run through the run's own pre-flight
// check (preflightCheck: its database pods' requests, summed, against the
// Ready, schedulable nodes its placement matches) before the sweep starts:
// a cell that no node can hold would otherwise fail only when its turn
// came, perhaps hours into the study. One that cannot run fails the sweep
// at once with the run's reason, naming the cell, and nothing is created.
// Once the sweep runs, its runs check for themselves. ok is false when
// the sweep must stop here; note says, for the Validated condition, how
// the cells were found to fit.
func (r *BenchmarkSweepReconciler) checkCapacity(ctx context.Context, s *sweepState, runs []cellRun) (note string, ok bool, err error) {
	if s.sweep.Status.Phase != benchv1.SweepPending || len(runs) == 0 {
		return "", true, nil
	}
	nodes, err := listNodes(ctx, r.APIReader)
	if err != nil {
		s.setCondition(benchv1.ConditionValidated, metav1.ConditionFalse, benchv1.ReasonValidating,
			fmt.Sprintf("cannot check that the cells fit a node, retrying: %s", err))
		return "", false, err
	}
	if nodes == nil {
		return " (the manager may not list Nodes: each run checks that it fits when it starts)", true, nil
	}
	log := logf.FromContext(ctx)
	for _, cr := range runs {
		if _, reason, msg := preflightCheck(cr.run, nodes, log); reason != "" {
			s.end(benchv1.SweepFailed, reason,
				fmt.Sprintf("cell %d (%s) cannot run; nothing was created: %s", cr.cell.Index, cr.cell.Describe(), msg))
			return "", false, nil
		}
	}
	return ", and a node can hold each", true, nil
}

// observe finds the sweep's runs by the sweep's label, uncached. A run the
// sweep created and that is gone (deleted by someone) counts as failed,
// with reason RunDeleted, and is never created again: its cell's results
// would mix two different runs. Runs that hold a planned name but are not
// the sweep's are sorted by classify; those without the label show up when
// a dry run or a create finds the name taken.
func (r *BenchmarkSweepReconciler) observe(ctx context.Context, s *sweepState) (bool, error) {
	var list benchv1.BenchmarkRunList
	if err := r.APIReader.List(ctx, &list, client.InNamespace(s.sweep.Namespace),
		client.MatchingLabels{benchv1.LabelSweep: s.sweep.Name}); err != nil {
		return false, fmt.Errorf("list the runs of sweep %s: %w", s.sweep.Name, err)
	}
	byName := make(map[string]*benchv1.BenchmarkRun, len(list.Items))
	for i := range list.Items {
		byName[list.Items[i].Name] = &list.Items[i]
	}
	created := map[string]types.UID{}
	for _, c := range s.sweep.Status.Cells {
		for _, rs := range c.Runs {
			if rs.UID != "" {
				created[rs.Name] = rs.UID
			}
		}
	}
	s.runs = map[string]*benchv1.BenchmarkRun{}
	for _, p := range s.plan {
		run := byName[p.Name]
		uid, wasCreated := created[p.Name]
		switch {
		case run != nil && metav1.IsControlledBy(run, s.sweep):
			s.runs[p.Name] = run
		case wasCreated:
			// Not under the label: deleted, or its label was removed.
			got := &benchv1.BenchmarkRun{}
			err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: s.sweep.Namespace, Name: p.Name}, got)
			switch {
			case err == nil && got.UID == uid:
				s.runs[p.Name] = got
			case err == nil || apierrors.IsNotFound(err):
				s.runs[p.Name] = deletedRun(p.Name, uid)
			default:
				return false, fmt.Errorf("get run %s: %w", p.Name, err)
			}
		case run != nil:
			s.classify(run)
		}
	}
	return true, nil
}

// classify sorts a run that holds a planned name and is not the sweep's:
// one on its way out (terminating, or a run of a deleted sweep of the same
// name, which the garbage collector removes) is waited for; any other is a
// conflict, since its results would be someone else's.
func (s *sweepState) classify(run *benchv1.BenchmarkRun) {
	switch {
	case metav1.IsControlledBy(run, s.sweep):
		s.runs[run.Name] = run
	case run.DeletionTimestamp != nil || ownedByPredecessor(run, s.sweep):
		if !slices.Contains(s.waiting, run.Name) {
			s.waiting = append(s.waiting, run.Name)
		}
		s.requeue = predecessorRequeue
	case s.conflict == "":
		s.conflict = run.Name
	}
}

// taken looks at the run that holds a name a dry run or a create found
// taken, and classifies it.
func (r *BenchmarkSweepReconciler) taken(ctx context.Context, s *sweepState, name string) error {
	run := &benchv1.BenchmarkRun{}
	if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: s.sweep.Namespace, Name: name}, run); err != nil {
		if apierrors.IsNotFound(err) {
			s.requeue = conflictRequeue // gone meanwhile: try again
			return nil
		}
		return fmt.Errorf("get run %s: %w", name, err)
	}
	s.classify(run)
	return nil
}

// predecessorRequeue is how often a sweep looks whether the runs of its
// deleted predecessor are gone.
const predecessorRequeue = 2 * time.Second

// ownedByPredecessor reports whether run belongs to an earlier sweep of the
// same name (deleted; the garbage collector removes its runs).
func ownedByPredecessor(run *benchv1.BenchmarkRun, sw *benchv1.BenchmarkSweep) bool {
	ref := metav1.GetControllerOf(run)
	return ref != nil && ref.Kind == "BenchmarkSweep" && ref.Name == sw.Name && ref.UID != sw.UID
}

// deletedRun stands for a run the sweep created that no longer exists.
func deletedRun(name string, uid types.UID) *benchv1.BenchmarkRun {
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: name, UID: uid}}
	run.Status.Phase = benchv1.RunFailed
	run.Status.Conditions = []metav1.Condition{{Type: benchv1.ConditionFailed, Status: metav1.ConditionTrue,
		Reason: string(benchv1.ReasonRunDeleted), Message: "the run was deleted before the sweep ended"}}
	return run
}

// aggregate writes the children's results into the sweep's status.
func (r *BenchmarkSweepReconciler) aggregate(_ context.Context, s *sweepState) (bool, error) {
	agg := sweep.AggregateRuns(&s.sweep.Spec, s.axes, s.cells, s.plan, s.runs)
	st := &s.sweep.Status
	st.Cells, st.Knees = agg.Cells, agg.Knees
	st.CellsDone, st.CellsFailed, st.RunsActive = agg.CellsDone, agg.CellsFailed, agg.RunsActive
	st.CellsInvalid, st.RunsInvalid = agg.CellsInvalid, agg.RunsInvalid
	st.Baseline, st.Best, st.SummaryPhase = agg.Baseline, agg.Best, agg.SummaryPhase
	return true, nil
}

// createRuns creates the next runs in plan order while fewer than
// parallelism are active. The first creation waits for phase Running (with
// the plan) to be stored: from then on CEL freezes the spec, so every run
// is made from the spec the plan was made from. Under failurePolicy Stop,
// or after a name conflict, nothing new starts.
func (r *BenchmarkSweepReconciler) createRuns(ctx context.Context, s *sweepState) (bool, error) {
	st := &s.sweep.Status
	if s.conflict != "" || (s.sweep.Spec.FailurePolicy == benchv1.SweepStop && r.firstFailed(s) != "") {
		return true, nil
	}
	if st.Phase == benchv1.SweepPending {
		st.Phase = benchv1.SweepRunning
		s.requeue = time.Millisecond // create once Running is stored
		return false, nil
	}
	active := int(st.RunsActive)
	limit := int(max(s.sweep.Spec.Parallelism, 1))
	for _, p := range s.plan {
		if active >= limit {
			break
		}
		if s.runs[p.Name] != nil || slices.Contains(s.waiting, p.Name) {
			continue
		}
		run, err := r.childRun(s.sweep, &s.cells[p.Cell], p.Repetition)
		if err != nil {
			return false, err
		}
		if err := r.Create(ctx, run); err != nil {
			if apierrors.IsAlreadyExists(err) {
				if err := r.taken(ctx, s, p.Name); err != nil {
					return false, err
				}
				if own := s.runs[p.Name]; own != nil {
					if !sweep.Ended(own) { // ours, without our label
						active++
					}
					continue
				}
				return true, nil // a conflict, or a predecessor to wait for
			}
			return false, fmt.Errorf("create run %s: %w", p.Name, err)
		}
		s.runs[p.Name] = run
		active++
		c := &s.cells[p.Cell]
		s.eventf(benchv1.EventRunCreated, "created run %s: cell %d (%s), repetition %d", p.Name, c.Index, c.Describe(), p.Repetition)
	}
	// Record the new runs' UIDs at once: a run deleted later is then known
	// as one the sweep created.
	agg := sweep.AggregateRuns(&s.sweep.Spec, s.axes, s.cells, s.plan, s.runs)
	st.Cells, st.RunsActive = agg.Cells, agg.RunsActive
	return true, nil
}

// firstFailed names the first failed run in plan order, or "".
func (r *BenchmarkSweepReconciler) firstFailed(s *sweepState) string {
	for _, p := range s.plan {
		if run := s.runs[p.Name]; run != nil && run.Status.Phase == benchv1.RunFailed {
			return p.Name
		}
	}
	return ""
}

// finish ends the sweep once no run is active and none will start; an
// ended sweep's cells are compared with their baseline (spec.compare) and
// its series pruned (spec.historyLimit), in the same status write, since
// an ended sweep is never reconciled again.
func (r *BenchmarkSweepReconciler) finish(ctx context.Context, s *sweepState) (bool, error) {
	before, nEvents := s.sweep.Status.DeepCopy(), len(s.events)
	r.decideEnd(s)
	st := &s.sweep.Status
	if !sweep.Terminal(st.Phase) {
		return true, nil
	}
	err := error(nil)
	if st.Phase == benchv1.SweepSucceeded || st.Phase == benchv1.SweepPartiallySucceeded {
		err = r.compareCells(ctx, s)
	}
	if err == nil {
		err = r.pruneHistory(ctx, s)
	}
	if err != nil {
		// An ended sweep is never reconciled again: end it only once its
		// verdict and pruning are done, and retry (with backoff) until then.
		s.sweep.Status, s.events = *before, s.events[:nEvents]
		return false, err
	}
	return true, nil
}

// decideEnd moves the sweep to its final phase once no run is active and
// none will start.
func (r *BenchmarkSweepReconciler) decideEnd(s *sweepState) {
	st := &s.sweep.Status
	if st.RunsActive > 0 {
		return
	}
	total := len(s.plan)
	created, failed := 0, 0
	for _, p := range s.plan {
		if run := s.runs[p.Name]; run != nil {
			created++
			if run.Status.Phase == benchv1.RunFailed {
				failed++
			}
		}
	}
	if s.conflict != "" {
		s.end(benchv1.SweepFailed, benchv1.ReasonNameConflict, fmt.Sprintf(
			"a BenchmarkRun named %s exists and does not belong to the sweep; delete it or rename the sweep (%d of %d runs were created)",
			s.conflict, created, total))
		return
	}
	if s.sweep.Spec.FailurePolicy == benchv1.SweepStop && failed > 0 {
		name := r.firstFailed(s)
		s.end(benchv1.SweepFailed, benchv1.ReasonRunFailed, fmt.Sprintf("run %s failed (%s); failurePolicy Stop: %d of %d runs were not started",
			name, runReason(s.runs[name]), total-created, total))
		return
	}
	if created < total {
		return
	}
	switch failed {
	case 0:
		s.end(benchv1.SweepSucceeded, benchv1.ReasonSucceeded, fmt.Sprintf("all %d runs of %d cells succeeded", total, len(s.cells))+invalidNote(s))
	case total:
		s.end(benchv1.SweepFailed, benchv1.ReasonAllRunsFailed, fmt.Sprintf("all %d runs failed; the first: %s (%s)",
			total, r.firstFailed(s), runReason(s.runs[r.firstFailed(s)])))
	default:
		s.end(benchv1.SweepPartiallySucceeded, benchv1.ReasonSomeRunsFailed,
			fmt.Sprintf("%d of %d runs failed (%s); the cells' results aggregate the runs that succeeded", failed, total, failedRuns(s))+invalidNote(s))
	}
}

// maxInvalidInMessage bounds how many invalid runs and cells without a
// valid run the Complete condition's message names; the counts say the
// rest.
const maxInvalidInMessage = 5

// invalidNote says, for the Complete condition's message, which runs
// succeeded but are not valid (left out of the aggregates, as failed
// runs are) and which cells have no valid run (no results): "" when none.
func invalidNote(s *sweepState) string {
	st := &s.sweep.Status
	if st.RunsInvalid == 0 {
		return ""
	}
	var runs, cells []string
	for _, c := range st.Cells {
		usable := 0
		for _, r := range c.Runs {
			switch {
			case r.Valid != nil && !*r.Valid:
				runs = append(runs, r.Name+": "+r.InvalidReason)
			case r.Phase == benchv1.RunSucceeded:
				usable++
			}
		}
		if c.InvalidRuns > 0 && usable == 0 {
			cells = append(cells, c.Name)
		}
	}
	name := func(list []string) string {
		if len(list) > maxInvalidInMessage {
			return strings.Join(list[:maxInvalidInMessage], ", ") + fmt.Sprintf(" and %d more", len(list)-maxInvalidInMessage)
		}
		return strings.Join(list, ", ")
	}
	note := fmt.Sprintf("; %d of the runs that succeeded are not valid and left out of the results (%s)", st.RunsInvalid, name(runs))
	if len(cells) > 0 {
		note += fmt.Sprintf("; %d cells have no valid run, hence no results: %s", len(cells), name(cells))
	}
	return note
}

// runReason is a failed run's Failed reason.
func runReason(run *benchv1.BenchmarkRun) string {
	if run == nil {
		return "unknown"
	}
	if c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionFailed); c != nil && c.Status == metav1.ConditionTrue {
		return c.Reason
	}
	return "no reason recorded"
}

// failedRuns lists up to five failed runs with their reasons.
func failedRuns(s *sweepState) string {
	var out []string
	for _, p := range s.plan {
		if run := s.runs[p.Name]; run != nil && run.Status.Phase == benchv1.RunFailed {
			if len(out) == 5 {
				out = append(out, "…")
				break
			}
			out = append(out, p.Name+": "+runReason(run))
		}
	}
	return strings.Join(out, ", ")
}

// childRun builds the run of a cell and repetition: the cell's spec,
// deterministic name and labels, owned (and garbage-collected) by the sweep.
func (r *BenchmarkSweepReconciler) childRun(sw *benchv1.BenchmarkSweep, c *sweep.Cell, repetition int) (*benchv1.BenchmarkRun, error) {
	run := &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{
			Name:      sweep.RunName(sw.Name, c.Index, repetition),
			Namespace: sw.Namespace,
			Labels:    sweep.Labels(sw.Name, c, repetition),
		},
		Spec: *c.Spec.DeepCopy(),
	}
	if err := controllerutil.SetControllerReference(sw, run, r.Scheme); err != nil {
		return nil, fmt.Errorf("own run %s: %w", run.Name, err)
	}
	return run, nil
}

// SetupWithManager registers the controller. The sweep's own status writes
// do not wake it (GenerationChangedPredicate); its children's changes do.
func (r *BenchmarkSweepReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	if r.APIReader == nil {
		r.APIReader = mgr.GetAPIReader()
	}
	if err := ctrl.NewControllerManagedBy(mgr).
		For(&benchv1.BenchmarkSweep{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Owns(&benchv1.BenchmarkRun{}).
		WithOptions(controllerOptions(r.MaxConcurrentReconciles)).
		Named("benchmarksweep").
		Complete(r); err != nil {
		return fmt.Errorf("set up benchmarksweep controller: %w", err)
	}
	return nil
}
