/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "model/tracker.h"
#include "model/tracker_test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/devtab.h"
#include "base/hot.h"
#include "base/list.h"
#include "base/map.h"

/*
 * In-flight things, one node each: a queued bio with bytes (BIO), a
 * dispatched request with bytes (RQ), both found by (device, sector)
 * through one hash table; an empty bio or empty request (flush) lives
 * only on its device's first-in-first-out list.  Every node is also on
 * its device's list of its kind, oldest first, so the cap can drop the
 * oldest.
 */
enum kind { K_BIO, K_RQ, K_EBIO, K_ERQ, K_XRQ, K_NKINDS };

/* K_XRQ: a request of either kind whose dispatch expired (older than
 * its device's bound with no C): only on its list, handed out at the
 * end as unfinished.  The RQ and ERQ lists stay in order of dispatch
 * (a request back from a requeue goes to the tail), so the expired
 * ones are always at their heads. */

struct node {
	/* BIO and RQ nodes are hashed by (device, sector, kind): the
	 * nodes of one key make a run, a pairing heap by seq (Fredman,
	 * Sedgewick, Sleator and Tarjan, "The pairing heap", Algorithmica
	 * 1, 1986) whose root, the oldest, alone stands for them on its
	 * bucket's chain (a node inserted is a root there until the next
	 * look-up of its key melds the key's roots into one run). */
	struct node *hnext;           /* a run's root: the next root */
	struct node **hprev;          /* a run's root: what points at it
				       * in the chain; else NULL */
	struct node *child;           /* its first child in its run */
	struct node *snext;           /* its next sibling */
	struct node *sprev;           /* its previous sibling, or its
				       * parent when the first child;
				       * NULL for a root and when not
				       * hashed */
	WC_TAILQ_ENTRY(node) link;    /* device list of its kind; the
				       * pool's link when free */
	enum kind kind;
	uint64_t seq;                 /* creation order: oldest wins */
	bool at_driver;               /* RQ/ERQ: dispatched, not requeued */
	bool requeued;                /* RQ: counted in dev.requeued */
	struct wc_request rq;
};

WC_TAILQ_HEAD(nodeq, node);

struct list {
	struct nodeq q;
	size_t n;
};

struct dev {
	uint32_t device;
	uint32_t at_driver;           /* requests dispatched, not completed */
	uint32_t requeued;            /* RQ nodes requeued, not dispatched
				       * again: a D looks for one only when
				       * there is one */
	uint32_t asker_pid;           /* latest write queued asking for a */
	bool has_asker;               /* flush (PREFLUSH or FUA) */
	bool one_flush;               /* at most one flush in flight: a
				       * flush C is the newest flush D's
				       * (wc_tracker_set_hw_queues()) */
	uint32_t erequeued;           /* ERQ nodes requeued, not dispatched
				       * again */
	uint64_t bound;               /* ns a dispatch stays a candidate */
	bool on_disk;                 /* a partition of tr's disk */
	bool dispatched;              /* a D was seen on the device: a C
				       * without its D before it was in
				       * flight when recording began */
	struct list lists[K_NKINDS];
};

struct wc_tracker {
	/* The events are read where the batch source keeps them; a
	 * one-at-a-time source (wc_tracker_open_source()) is a batch
	 * source of one event, in one. */
	wc_tracker_batch_source bnext;
	void *bctx;
	const struct wc_event *evs;
	size_t pos, n;
	wc_event_source next;
	void *ctx;
	struct wc_event one;
	/* stats is brought up to date (stats_sync()) before the caller can
	 * look: per event, only what cannot be worked out later. */
	struct wc_tracker_stats stats;
	uint64_t read;                /* events in the batches so far */
	uint64_t notifies;
	uint64_t latest;              /* of the non-notify events, or 0 */

	struct node **buckets;
	size_t nbuckets;              /* power of two */
	unsigned hash_shift;          /* 64 - log2(nbuckets) */
	uint64_t hash_mult;           /* odd, drawn at random (hash_of()) */
	size_t nhashed;
	uint64_t hash_steps;          /* other keys' roots passed, runs
				       * melded (tracker_test.h) */
	uint64_t seq;

	/* At most WC_MAX_DEVICES, by their number in devtab. */
	struct dev devs[WC_MAX_DEVICES];
	struct wc_devtab devtab;
	struct dev *last_dev;         /* traces mostly stay on one; NULL
				       * before the first */
	/* The bounds given (wc_tracker_set_bound()), for devices to come;
	 * device 0 is the default. */
	struct {
		uint32_t device;
		uint64_t ns;
	} bounds[WC_MAX_DEVICES];
	size_t nbounds;
	uint64_t bound;               /* the default */
	/* The hardware queues given (wc_tracker_set_hw_queues()). */
	struct {
		uint32_t device;
		uint32_t n;
	} hwqs[WC_MAX_DEVICES];
	size_t nhwqs;
	bool lossy;                   /* wc_tracker_set_lossy() */
	/* The partitions of one disk (wc_tracker_set_disk()) and the
	 * requests at the driver of them all. */
	uint32_t disk[WC_ACCOUNT_PARTS];
	size_t ndisk;
	uint32_t disk_at;

	/* Dropped nodes wait here for reuse instead of going back to
	 * malloc: never more than the most ever in flight at once. */
	struct node *pool;

	bool source_done;
	bool failed;
	struct wc_err src_err;
	size_t drain_dev;             /* next device to drain at the end */
};

static void list_add_tail(struct list *l, struct node *n)
{
	WC_TAILQ_INSERT_TAIL(&l->q, n, link);
	l->n++;
}

static void list_del(struct list *l, struct node *n)
{
	WC_TAILQ_REMOVE(&l->q, n, link);
	l->n--;
}

/* The oldest node of the list, or NULL. */
static struct node *list_first(struct list *l)
{
	return WC_TAILQ_FIRST(&l->q);
}

/*
 * The bucket of (device, sector): one multiply by an odd number drawn at
 * random for the process (map.h's secret), the product's top bits.  Sectors come
 * from strangers' traces: with a multiplier known in advance (the golden
 * ratio's, Fibonacci hashing), sectors i * m for a chosen m all land in
 * one bucket at every table size, and every look-up then walks them all
 * (60,000 bios queued on such sectors made a 46 MB trace take minutes).
 * Multiply-shift with a secret odd multiplier is universal (Dietzfelbinger
 * et al., "A reliable randomized algorithm for the closest-pair
 * problem", J. Algorithms 25, 1997): two keys share a bucket with
 * probability at most 2 / nbuckets whatever keys were chosen, so a
 * chain holds O(1) keys on average.  Nothing the analysis reports
 * depends on the buckets: a look-up finds a run by its key.  The kind
 * is not hashed: a bio and the request it becomes share a bucket.
 */
static inline size_t hash_of(uint32_t device, uint64_t sector,
			     uint64_t mult, unsigned shift)
{
	uint64_t x = sector ^ ((uint64_t)device << 32);

	return (size_t)((x * mult) >> shift);
}

static inline size_t bucket_of(const struct wc_tracker *tr,
			       const struct node *n)
{
	return hash_of(n->rq.device, n->rq.sector, tr->hash_mult,
		       tr->hash_shift);
}

static inline void hash_link(struct node **b, struct node *n)
{
	n->hnext = *b;
	if (n->hnext)
		n->hnext->hprev = &n->hnext;
	n->hprev = b;
	*b = n;
}

/* n takes the place of h, a run's root, on its chain. */
static inline void chain_replace(struct node *h, struct node *n)
{
	n->hnext = h->hnext;
	n->hprev = h->hprev;
	*n->hprev = n;
	if (n->hnext)
		n->hnext->hprev = &n->hnext;
	h->hnext = NULL;
	h->hprev = NULL;
}

static int hash_grow(struct wc_tracker *tr, struct wc_err *err)
{
	size_t n = tr->nbuckets ? tr->nbuckets * 2 : 1024;
	unsigned shift = tr->nbuckets ? tr->hash_shift - 1 : 64 - 10;
	struct node **b = calloc(n, sizeof(*b));
	size_t i;

	if (!b)
		return wc_err_oom(err, NULL, NULL);
	/* Only the roots move: each takes its run along. */
	for (i = 0; i < tr->nbuckets; i++) {
		struct node *p = tr->buckets[i], *q;

		for (; p; p = q) {
			q = p->hnext;
			hash_link(&b[hash_of(p->rq.device, p->rq.sector,
					     tr->hash_mult, shift)], p);
		}
	}
	free(tr->buckets);
	tr->buckets = b;
	tr->nbuckets = n;
	tr->hash_shift = shift;
	return 0;
}

/* a and b, two runs' roots of one key, made one run: the older root,
 * the younger its first child. */
static inline struct node *run_meld(struct node *a, struct node *b)
{
	struct node *t;

	if (b->seq < a->seq) {
		t = a;
		a = b;
		b = t;
	}
	b->sprev = a;
	b->snext = a->child;
	if (a->child)
		a->child->sprev = b;
	a->child = b;
	return a;
}

/* The siblings from first on made one run (first detached from its
 * parent): melded in pairs from the left, then the pairs from the right,
 * the pairing heap's two passes, which keep a removal O(log n) amortized
 * whatever the order of the ages (a sorted list of siblings, the bios
 * queued at one sector, costs O(1) each).  Its root, or NULL. */
static struct node *run_pairs(struct wc_tracker *tr, struct node *first)
{
	struct node *a, *b, *next, *pairs = NULL;

	while (first) {
		a = first;
		b = a->snext;
		next = b ? b->snext : NULL;
		a->snext = NULL;
		a->sprev = NULL;
		if (b) {
			b->snext = NULL;
			b->sprev = NULL;
			a = run_meld(a, b);
			tr->hash_steps++;
		}
		a->snext = pairs;          /* a stack of the pairs */
		pairs = a;
		first = next;
	}
	if (!pairs)
		return NULL;
	a = pairs;
	pairs = a->snext;
	a->snext = NULL;
	while (pairs) {
		b = pairs;
		pairs = b->snext;
		b->snext = NULL;
		a = run_meld(a, b);
		tr->hash_steps++;
	}
	return a;
}

/* Unlinks h, a run's root, from its chain. */
static inline void chain_unlink(struct node *h)
{
	*h->hprev = h->hnext;
	if (h->hnext)
		h->hnext->hprev = h->hprev;
	h->hnext = NULL;
	h->hprev = NULL;
}

/* a and b, two roots of one key on one chain (hash_insert() links a
 * node without looking for its key's root): the younger leaves the
 * chain for the older's run.  The older. */
static __attribute__((noinline)) struct node *
chain_unite(struct wc_tracker *tr, struct node *a, struct node *b)
{
	tr->hash_steps++;
	chain_unlink(b->seq < a->seq ? a : b);
	return run_meld(a, b);
}

/* The root of the run of (device, sector, kind) on chain p, or NULL,
 * and in *other (when not NULL) the root of the other kind's there.  The
 * whole chain is walked: a key may have several roots there, each
 * linked by an insertion, and the bios' and the requests' of (device,
 * sector) are made one run each here, once each. */
static inline struct node *chain_find(struct wc_tracker *tr, struct node *p,
				      uint32_t device, uint64_t sector,
				      enum kind kind, struct node **other)
{
	struct node *mine = NULL, *theirs = NULL, *next;

	for (; p; p = next) {
		next = p->hnext;
		if (p->rq.sector != sector || p->rq.device != device)
			tr->hash_steps++;
		else if (p->kind == kind)
			mine = mine ? chain_unite(tr, mine, p) : p;
		else
			theirs = theirs ? chain_unite(tr, theirs, p) : p;
	}
	if (other)
		*other = theirs;
	return mine;
}

/* n onto the chain of its key, a run of one: O(1), no look-up.  The
 * next look-up of its key makes it one run with the others there
 * (chain_find()): a new node (node_new(), bio_to_request()) is the
 * newest; the remainder of a split bio, moved to a later sector, keeps
 * its age, which may be older than some or all of the nodes there. */
static inline void hash_insert(struct wc_tracker *tr, struct node *n)
{
	tr->nhashed++;
	n->child = NULL;
	n->snext = NULL;
	n->sprev = NULL;
	hash_link(&tr->buckets[bucket_of(tr, n)], n);
}

/* hash_remove() of a node with children or below a root: its children,
 * made one run, take its place.  Out of the way of the usual removal, a
 * root alone in its run. */
static __attribute__((noinline)) void run_remove(struct wc_tracker *tr,
						 struct node *n)
{
	struct node *r = n->child ? run_pairs(tr, n->child) : NULL;

	n->child = NULL;
	if (n->hprev) {
		if (r)
			chain_replace(n, r);
		else
			chain_unlink(n);
	} else {
		/* Younger than its parent, r is in its place. */
		if (r) {
			r->sprev = n->sprev;
			r->snext = n->snext;
		}
		if (n->sprev->child == n)
			n->sprev->child = r ? r : n->snext;
		else
			n->sprev->snext = r ? r : n->snext;
		if (n->snext)
			n->snext->sprev = r ? r : n->sprev;
		n->snext = NULL;
		n->sprev = NULL;
	}
}

/* No look-up: the node knows its place in its run, and a root what
 * points at it. */
static inline void hash_remove(struct wc_tracker *tr, struct node *n)
{
	if (n->hprev && !n->child)
		chain_unlink(n);
	else if (n->hprev || n->sprev)
		run_remove(tr, n);
	else
		return;
	tr->nhashed--;
}

/* The oldest node of KIND (K_BIO or K_RQ) at (device, sector), or NULL:
 * its run's root; in *other (when not NULL) the other kind's there. */
static inline struct node *hash_find(struct wc_tracker *tr, uint32_t device,
				     uint64_t sector, enum kind kind,
				     struct node **other)
{
	return chain_find(tr, tr->buckets[hash_of(device, sector,
						    tr->hash_mult,
						    tr->hash_shift)],
			  device, sector, kind, other);
}

/* A device met for the first time: its state, or NULL past
 * WC_MAX_DEVICES (the event is then counted in stats.ignored_events by
 * the caller).  Once a device: kept out of the per-event path. */
static __attribute__((noinline, cold))
struct dev *dev_add(struct wc_tracker *tr, uint32_t device)
{
	int i = wc_devtab_add(&tr->devtab, device), k;
	struct dev *d;

	if (i < 0)
		return NULL;
	d = &tr->devs[i];
	memset(d, 0, sizeof(*d));
	for (k = 0; k < K_NKINDS; k++)
		WC_TAILQ_INIT(&d->lists[k].q);
	d->device = device;
	d->bound = tr->bound;
	for (k = 0; (size_t)k < tr->ndisk; k++)
		if (tr->disk[k] == device)
			d->on_disk = true;
	for (k = 0; (size_t)k < tr->nbounds; k++)
		if (tr->bounds[k].device == device)
			d->bound = tr->bounds[k].ns;
	/* One flush in flight on one hardware queue; on a device whose
	 * count is not known, only in a trace known to have lost events
	 * (tracker.h has the kernel's reasons). */
	d->one_flush = tr->lossy;
	for (k = 0; (size_t)k < tr->nhwqs; k++)
		if (tr->hwqs[k].device == device)
			d->one_flush = tr->hwqs[k].n == 1;
	return d;
}

/* A request left the driver of d (completed, dropped, expired or
 * requeued): one fewer there, and at its disk's. */
static inline void driver_leave(struct wc_tracker *tr, struct dev *d)
{
	if (d->at_driver)
		d->at_driver--;
	if (d->on_disk && tr->disk_at)
		tr->disk_at--;
}

/* Every Q, D and C creates or drops a node: a call each would cost more
 * than what they do. */

/* Unlinks n, of kind (n->kind, or a constant where the caller knows it:
 * the tests of the other kinds then go), and puts it in the pool. */
WC_HOT void node_drop_kind(struct wc_tracker *tr, struct dev *d, struct node *n,
			enum kind kind)
{
	if (kind == K_BIO || kind == K_RQ)
		hash_remove(tr, n);
	list_del(&d->lists[kind], n);
	if ((kind == K_RQ || kind == K_ERQ) && n->at_driver)
		driver_leave(tr, d);
	if (kind == K_RQ && n->requeued)
		d->requeued--;
	if (kind == K_ERQ && n->requeued)
		d->erequeued--;
	WC_TAILQ_NEXT(n, link) = tr->pool;
	tr->pool = n;
}

WC_HOT void node_drop(struct wc_tracker *tr, struct dev *d, struct node *n)
{
	node_drop_kind(tr, d, n, n->kind);
}

WC_HOT struct node *node_new(struct wc_tracker *tr, struct dev *d,
			  enum kind kind, const struct wc_event *ev,
			  struct wc_err *err)
{
	struct list *l = &d->lists[kind];
	struct node *n;

	/* Lost events leave things in flight forever; forget the oldest
	 * rather than grow with the trace. */
	if (l->n >= WC_TRACKER_MAX_INFLIGHT) {
		tr->stats.dropped_inflight++;
		node_drop(tr, d, list_first(l));
	}
	if ((kind == K_BIO || kind == K_RQ) && tr->nhashed >= tr->nbuckets &&
	    hash_grow(tr, err) < 0)
		return NULL;
	n = tr->pool;
	if (n)
		tr->pool = WC_TAILQ_NEXT(n, link);
	else
		n = malloc(sizeof(*n));
	if (!n) {
		wc_err_oom(err, NULL, NULL);
		return NULL;
	}
	/* Field by field, not a memset and then the fields (nor a
	 * compound literal, which is one): this runs for nearly every Q
	 * and D, and the request's padding is never read. */
	n->hnext = NULL;
	n->hprev = NULL;
	n->child = NULL;
	n->snext = NULL;
	n->sprev = NULL;
	n->kind = kind;
	n->seq = tr->seq++;
	n->at_driver = false;
	n->requeued = false;
	n->rq.device = ev->device;
	n->rq.sector = kind == K_BIO || kind == K_RQ ? ev->sector : 0;
	n->rq.bytes = ev->bytes;
	n->rq.action = ev->action & ~(uint64_t)0xffff;
	n->rq.q_time = WC_NO_TIME;
	n->rq.d_time = WC_NO_TIME;
	n->rq.c_time = WC_NO_TIME;
	n->rq.nbios = 0;
	n->rq.pid = ev->pid;
	n->rq.cause_pid = 0;
	n->rq.has_cause = false;
	n->rq.depth = 0;
	n->rq.disk_depth = 0;
	n->rq.error = 0;
	n->rq.completed = false;
	n->rq.requeues = 0;
	_Static_assert(sizeof(n->rq) == 88,
		       "a field added to wc_request is set here too");
	list_add_tail(l, n);
	if (kind == K_BIO || kind == K_RQ)
		hash_insert(tr, n);
	return n;
}

/* Moves n, a request of kind (K_RQ or K_ERQ) whose dispatch is older
 * than its device's bound, or a flush dispatch a later one superseded
 * (on_complete()), to the expired list: no C is its any more.  The
 * caller counts why. */
static __attribute__((noinline, cold))
void expire_node(struct wc_tracker *tr, struct dev *d, struct node *n,
		 enum kind kind)
{
	struct list *x = &d->lists[K_XRQ];

	if (kind == K_RQ)
		hash_remove(tr, n);
	list_del(&d->lists[kind], n);
	if (n->at_driver)
		driver_leave(tr, d);
	if (kind == K_RQ && n->requeued)
		d->requeued--;
	if (kind == K_ERQ && n->requeued)
		d->erequeued--;
	n->at_driver = false;
	n->requeued = false;
	n->kind = K_XRQ;
	if (x->n >= WC_TRACKER_MAX_INFLIGHT) {
		tr->stats.dropped_inflight++;
		node_drop(tr, d, list_first(x));
	}
	list_add_tail(x, n);
}

/* Whether a dispatch at d_time is past the bound at now (a clock that
 * stepped back expires nothing). */
static inline bool too_old(const struct dev *d, uint64_t d_time, uint64_t now)
{
	return now > d_time && now - d_time > d->bound;
}

/* Expires the device's dispatches older than the bound at now: the
 * heads of its lists, which are in order of dispatch.  Two tests per D
 * and C when nothing expires. */
WC_HOT void expire(struct wc_tracker *tr, struct dev *d, uint64_t now)
{
	struct node *n;

	while ((n = list_first(&d->lists[K_RQ])) &&
	       too_old(d, n->rq.d_time, now)) {
		tr->stats.expired++;
		expire_node(tr, d, n, K_RQ);
	}
	while ((n = list_first(&d->lists[K_ERQ])) &&
	       too_old(d, n->rq.d_time, now)) {
		tr->stats.expired++;
		expire_node(tr, d, n, K_ERQ);
	}
}

static uint64_t sectors_of(uint32_t bytes)
{
	return ((uint64_t)bytes + 511) / 512;
}

/* Every Q and every D (on_issue()) goes through these: inlined into the
 * event loop, which GCC's LTO left to a call each once the runs' code
 * grew (2 to 4 % more instructions on the samples' shape). */
WC_HOT int on_queue(struct wc_tracker *tr, struct dev *d,
		    const struct wc_event *ev, struct wc_err *err)
{
	/* Each call with its kind known: node_new() is inlined without
	 * the tests of the other kinds. */
	struct node *n = ev->bytes ? node_new(tr, d, K_BIO, ev, err) :
				     node_new(tr, d, K_EBIO, ev, err);

	if (!n)
		return -1;
	n->rq.q_time = ev->time;
	n->rq.nbios = 1;
	if (ev->bytes &&
	    (ev->action & (WC_TC(WC_TC_FLUSH) | WC_TC(WC_TC_FUA))) &&
	    (ev->action & WC_TC(WC_TC_WRITE))) {
		d->asker_pid = ev->pid;
		d->has_asker = true;
	}
	return 0;
}

/* Moves the queued bios that make up [s, e) into rq. */
WC_HOT int take_bios(struct wc_tracker *tr, struct dev *d,
		     struct wc_request *rq, uint64_t s, uint64_t e,
		     struct wc_err *err)
{
	uint64_t pos = s;

	while (pos < e) {
		struct node *b = hash_find(tr, rq->device, pos, K_BIO, NULL);
		uint64_t end;

		if (!b)
			break;
		if (rq->nbios == 0)
			rq->pid = b->rq.pid;
		if (b->rq.q_time < rq->q_time)
			rq->q_time = b->rq.q_time;
		rq->nbios++;
		end = pos + sectors_of(b->rq.bytes);
		if (end > e) {
			/* Split: the rest of the bio waits for its own D. */
			hash_remove(tr, b);
			b->rq.bytes -= (uint32_t)((e - pos) * 512);
			b->rq.sector = e;
			if (tr->nhashed >= tr->nbuckets && hash_grow(tr, err) < 0)
				return -1;
			hash_insert(tr, b);
			break;
		}
		node_drop_kind(tr, d, b, K_BIO);
		pos = end;
	}
	return 0;
}

/* b, a bio's run's root, becomes the newest of the run of the requests
 * of its key (h, its root, or NULL): bio_to_request() when b is not
 * alone, or a request is there.  Out of the way of the usual D. */
static __attribute__((noinline)) void bio_moves_runs(struct wc_tracker *tr,
						     struct node *b,
						     struct node *h)
{
	hash_remove(tr, b);
	b->kind = K_RQ;
	b->seq = tr->seq++;
	if (h) {
		tr->nhashed++;
		run_meld(h, b);
	} else {
		hash_insert(tr, b);
	}
}

/*
 * The request whose first bio is b, not split by the D: b's node becomes
 * the request's, with what node_new() and take_bios() would have left
 * in a new one: the request list's cap applied first, the request's
 * creation order, the D's bytes and action, b's pid and Q time, one bio.
 * Its bucket is the same: it moves from the run of its bios to the run
 * of its requests, whose root h the look-up of b found (or NULL).
 */
WC_HOT struct node *bio_to_request(struct wc_tracker *tr, struct dev *d,
				struct node *b, struct node *h,
				const struct wc_event *ev)
{
	struct list *l = &d->lists[K_RQ];

	if (l->n >= WC_TRACKER_MAX_INFLIGHT) {
		tr->stats.dropped_inflight++;
		node_drop(tr, d, list_first(l));
	}
	list_del(&d->lists[K_BIO], b);
	/* From the run of its bios (b is its root) to the run of its
	 * requests (h is its root, or NULL), the newest there.  Alone among
	 * its key's bios, as most are, and with no request there, it stays
	 * in its place on the chain, the root of a run of one. */
	if (__builtin_expect(b->child || h, 0)) {
		bio_moves_runs(tr, b, h);
	} else {
		b->kind = K_RQ;
		b->seq = tr->seq++;
	}
	/* A queued bio's node has no D, C, depth, error or requeue yet, and
	 * at_driver and requeued are false: only these differ. */
	b->rq.bytes = ev->bytes;
	b->rq.action = ev->action & ~(uint64_t)0xffff;
	list_add_tail(l, b);
	return b;
}

/* The newest empty request at the driver (the one flush a device with
 * one flush in flight has there), or NULL.  The list is short: each C
 * sets the older ones aside (on_complete()). */
static struct node *erq_newest(struct dev *d)
{
	struct node *n, *newest = NULL;

	WC_TAILQ_FOREACH(n, &d->lists[K_ERQ].q, link)
		if (n->at_driver)
			newest = n;
	return newest;
}

/* The requeued empty request a D dispatches again: the newest on a
 * device with one flush in flight, else the oldest. */
static struct node *erq_requeued(struct dev *d)
{
	struct node *n, *found = NULL;

	WC_TAILQ_FOREACH(n, &d->lists[K_ERQ].q, link)
		if (n->requeued) {
			found = n;
			if (!d->one_flush)
				break;
		}
	return found;
}

WC_HOT int on_issue(struct wc_tracker *tr, struct dev *d,
		    const struct wc_event *ev, struct wc_err *err)
{
	struct node *n, *b, *h;
	uint64_t e;

	expire(tr, d, ev->time);
	d->dispatched = true;
	if (ev->bytes == 0) {
		/* A flush back from a requeue is dispatched again, not a
		 * second flush: last in order of dispatch, as a request
		 * with bytes. */
		n = d->erequeued ? erq_requeued(d) : NULL;
		if (n) {
			n->requeued = false;
			d->erequeued--;
			list_del(&d->lists[K_ERQ], n);
			list_add_tail(&d->lists[K_ERQ], n);
			n->rq.action = ev->action & ~(uint64_t)0xffff;
			goto dispatched;
		}
		n = node_new(tr, d, K_ERQ, ev, err);
		if (!n)
			return -1;
		if (list_first(&d->lists[K_EBIO])) {
			b = list_first(&d->lists[K_EBIO]);
			n->rq.q_time = b->rq.q_time;
			n->rq.pid = b->rq.pid;
			n->rq.nbios = 1;
			n->rq.cause_pid = b->rq.pid;
			n->rq.has_cause = true;
			node_drop_kind(tr, d, b, K_EBIO);
		} else if (d->has_asker && (ev->action & WC_TC(WC_TC_FLUSH))) {
			n->rq.cause_pid = d->asker_pid;
			n->rq.has_cause = true;
		}
		goto dispatched;
	}
	/* Only a requeued request is looked for, and only when there is
	 * one: most D start a request. */
	n = d->requeued ? hash_find(tr, ev->device, ev->sector, K_RQ, NULL) :
			   NULL;
	if (n && !n->at_driver) {
		/* Back from a requeue: last in order of dispatch. */
		n->requeued = false;
		d->requeued--;
		list_del(&d->lists[K_RQ], n);
		list_add_tail(&d->lists[K_RQ], n);
		n->rq.bytes = ev->bytes;
		n->rq.action = ev->action & ~(uint64_t)0xffff;
		goto dispatched;
	}
	e = ev->sector + sectors_of(ev->bytes);
	b = hash_find(tr, ev->device, ev->sector, K_BIO, &h);
	/* take_bios()'s first step, its sums wrapping the same way. */
	if (b && ev->sector < e && ev->sector + sectors_of(b->rq.bytes) <= e) {
		uint64_t next = ev->sector + sectors_of(b->rq.bytes);

		n = bio_to_request(tr, d, b, h, ev);
		if (take_bios(tr, d, &n->rq, next, e, err) < 0)
			return -1;
		goto dispatched;
	}
	n = node_new(tr, d, K_RQ, ev, err);
	if (!n)
		return -1;
	if (take_bios(tr, d, &n->rq, ev->sector, e, err) < 0)
		return -1;
dispatched:
	n->at_driver = true;
	n->rq.d_time = ev->time;
	n->rq.depth = ++d->at_driver;
	n->rq.disk_depth = d->on_disk ? ++tr->disk_at : 0;
	return 0;
}

static void on_requeue(struct wc_tracker *tr, struct dev *d,
		       const struct wc_event *ev)
{
	struct node *n;

	if (ev->bytes == 0)
		n = d->one_flush ? erq_newest(d) :
				   list_first(&d->lists[K_ERQ]);
	else
		n = hash_find(tr, ev->device, ev->sector, K_RQ, NULL);
	if (!n || !n->at_driver)
		return;
	n->at_driver = false;
	n->requeued = true;
	if (n->kind == K_RQ)
		d->requeued++;
	else
		d->erequeued++;
	n->rq.requeues++;
	driver_leave(tr, d);
}

/* On a device with one flush in flight, a flush C came: every older
 * empty dispatch still at the driver lost its C (tracker.h).  They are
 * no C's any more, and are handed out at the end as unfinished. */
static __attribute__((noinline, cold))
void supersede(struct wc_tracker *tr, struct dev *d)
{
	struct node *n;

	while ((n = list_first(&d->lists[K_ERQ]))) {
		tr->stats.superseded++;
		expire_node(tr, d, n, K_ERQ);
	}
}

/* Fills *out and returns 1 when the completion matched a request.  One
 * C a request: in the per-event path with the others. */
WC_HOT int on_complete(struct wc_tracker *tr, struct dev *d,
		       const struct wc_event *ev, struct wc_request *out)
{
	struct node *n, *b;

	expire(tr, d, ev->time);
	if (ev->bytes == 0) {
		n = d->one_flush ? erq_newest(d) :
				   list_first(&d->lists[K_ERQ]);
		/* blk-mq's flush machinery ends a preflush/FUA sequence with
		 * an empty completion of the original request, after its
		 * flushes and its data completed: nothing was dispatched for
		 * it, so it is neither a request nor a lost event. */
		if (!wc_event_has(ev, WC_TC_FLUSH) &&
		    (!n || (n->rq.action & WC_TC(WC_TC_FLUSH)))) {
			tr->stats.sequence_ends++;
			return 0;
		}
	} else {
		n = hash_find(tr, ev->device, ev->sector, K_RQ, &b);
		/* Bio-based devices (device mapper) complete bios that were
		 * never dispatched as requests, within the bound too. */
		if (!n && b && !too_old(d, b->rq.q_time, ev->time))
			n = b;
	}
	if (!n) {
		if (d->dispatched)
			tr->stats.orphan_completions++;
		else
			tr->stats.began_in_flight++;
		return 0;
	}
	*out = n->rq;
	out->c_time = ev->time;
	out->error = ev->error;
	out->completed = true;
	/* Each drop with its kind known, as node_new() is called. */
	if (n->kind == K_BIO) {
		out->d_time = WC_NO_TIME;
		out->action = ev->action & ~(uint64_t)0xffff;
		node_drop_kind(tr, d, n, K_BIO);
	} else if (n->kind == K_RQ) {
		node_drop_kind(tr, d, n, K_RQ);
	} else {
		node_drop_kind(tr, d, n, K_ERQ);
		if (d->one_flush)
			supersede(tr, d);
	}
	tr->stats.requests++;
	return 1;
}

/* The earliest and latest time of the non-notify events, kept by
 * wc_tracker_next() in locals while it runs through a batch. */
struct span {
	uint64_t first, latest;
};

/* Earliest and latest, not first and last: a clock that stepped back
 * must not shrink the window below the requests it holds.  WC_NO_TIME
 * is the largest time, so the earliest needs no test of its own; the
 * latest is WC_NO_TIME until an event came (stats_sync()). */
WC_HOT void span_add(struct span *sp, uint64_t t)
{
	sp->first = t < sp->first ? t : sp->first;
	sp->latest = t > sp->latest ? t : sp->latest;
}

/* The device of an event the tracker follows, or NULL (counted). */
WC_HOT struct dev *dev_of(struct wc_tracker *tr, uint32_t device)
{
	struct dev *d = tr->last_dev;
	int i;

	if (d && d->device == device)
		return d;
	i = wc_devtab_find(&tr->devtab, device);
	d = i >= 0 ? &tr->devs[i] : dev_add(tr, device);
	if (!d)
		tr->stats.ignored_events++;
	else
		tr->last_dev = d;
	return d;
}

/* 1 with a request, 0 when the event gave none, -1 on failure. */
WC_HOT int handle(struct wc_tracker *tr, struct span *sp,
	       const struct wc_event *ev, struct wc_request *rq,
	       struct wc_err *err)
{
	uint64_t action = ev->action;
	struct dev *d;

	/* Notify records and SCSI commands are rare: one test for both. */
	if (action & (WC_TC(WC_TC_NOTIFY) | WC_TC(WC_TC_PC))) {
		if (action & WC_TC(WC_TC_NOTIFY))
			tr->notifies++;
		else
			span_add(sp, ev->time);
		return 0;
	}
	span_add(sp, ev->time);
	/* One range test and a jump for every kind of event. */
	switch ((unsigned)(action & WC_TA_MASK)) {
	case WC_TA_QUEUE:
		d = dev_of(tr, ev->device);
		return d ? on_queue(tr, d, ev, err) : 0;
	case WC_TA_ISSUE:
		d = dev_of(tr, ev->device);
		return d ? on_issue(tr, d, ev, err) : 0;
	case WC_TA_REQUEUE:
		d = dev_of(tr, ev->device);
		if (d)
			on_requeue(tr, d, ev);
		return 0;
	case WC_TA_COMPLETE:
		d = dev_of(tr, ev->device);
		return d ? on_complete(tr, d, ev, rq) : 0;
	default:
		return 0;
	}
}

/* The counters worked out from what handle() keeps. */
static void stats_sync(struct wc_tracker *tr)
{
	tr->stats.events = tr->read - (tr->n - tr->pos);
	tr->stats.io_events = tr->stats.events - tr->notifies;
	tr->stats.last_time = tr->stats.io_events ? tr->latest : WC_NO_TIME;
	/* first_time is kept in place: WC_NO_TIME until an event came. */
}

/* Hands out the next unfinished request, or returns 0. */
static int drain(struct wc_tracker *tr, struct wc_request *rq)
{
	for (; tr->drain_dev < wc_devtab_count(&tr->devtab); tr->drain_dev++) {
		struct dev *d = &tr->devs[tr->drain_dev];
		struct node *n;

		while ((n = list_first(&d->lists[K_BIO]))) {
			tr->stats.never_dispatched++;
			node_drop(tr, d, n);
		}
		while ((n = list_first(&d->lists[K_EBIO]))) {
			tr->stats.never_dispatched++;
			node_drop(tr, d, n);
		}
		n = list_first(&d->lists[K_RQ]);
		if (!n)
			n = list_first(&d->lists[K_ERQ]);
		if (!n)
			n = list_first(&d->lists[K_XRQ]);
		if (n) {
			*rq = n->rq;
			rq->completed = false;
			rq->c_time = WC_NO_TIME;
			tr->stats.unfinished++;
			node_drop(tr, d, n);
			return 1;
		}
	}
	return 0;
}

/* A one-at-a-time source as a batch source of one event. */
static int one_at_a_time(void *ctx, const struct wc_event **evs, size_t *n,
			 struct wc_err *err)
{
	struct wc_tracker *tr = ctx;
	int r = tr->next(tr->ctx, &tr->one, err);

	*evs = &tr->one;
	*n = r > 0;
	return r;
}

int wc_tracker_next_batch(struct wc_tracker *tr, struct wc_request *rqs,
			  size_t max, size_t *got, struct wc_err *err)
{
	const struct wc_event *ev, *end;
	struct span sp;
	size_t k = 0;
	int r;

	*got = 0;
	if (max == 0)
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "a batch of no requests");
	if (tr->source_done)
		goto drained;
	for (;;) {
		/* In locals: handle() writes through tr, and the compiler
		 * would load them again for every event.  Before the first
		 * batch tr->evs is NULL, and NULL + 0 is undefined in C
		 * (clang's UBSan says so): no batch, no pointers. */
		ev = end = NULL;
		if (tr->n) {
			ev = tr->evs + tr->pos;
			end = tr->evs + tr->n;
		}
		sp.first = tr->stats.first_time;
		sp.latest = tr->latest;
		while (ev < end) {
			/* handle() fills all of rqs[k] when it returns 1. */
			r = handle(tr, &sp, ev++, &rqs[k], &tr->src_err);
			if (r == 0)
				continue;
			if (r < 0) {
				tr->failed = true;
				break;
			}
			if (++k == max)
				break;
		}
		tr->stats.first_time = sp.first;
		tr->latest = sp.latest;
		if (tr->n)
			tr->pos = (size_t)(ev - tr->evs);
		if (tr->failed)
			goto done;
		/* Never past the batch the requests came from: what the
		 * source learns as it reads (process names) is then what
		 * it knew when they completed. */
		if (k > 0) {
			stats_sync(tr);
			*got = k;
			return 1;
		}
		tr->pos = tr->n = 0;
		r = tr->bnext(tr->bctx, &tr->evs, &tr->n, &tr->src_err);
		if (r < 0)
			tr->failed = true;
		if (r <= 0) {
			tr->n = 0;
			goto done;
		}
		tr->read += tr->n;
	}

done:
	/* Nothing more is read, not even the rest of a batch after a
	 * failure. */
	tr->source_done = true;
	tr->read -= tr->n - tr->pos;
	tr->pos = tr->n = 0;
drained:
	stats_sync(tr);
	while (k < max && drain(tr, &rqs[k]))
		k++;
	*got = k;
	if (k > 0)
		return 1;
	if (tr->failed) {
		if (err && err->kind == WC_ERR_NONE)
			*err = tr->src_err;
		return -1;
	}
	return 0;
}

int wc_tracker_next(struct wc_tracker *tr, struct wc_request *rq,
		    struct wc_err *err)
{
	size_t got;

	return wc_tracker_next_batch(tr, rq, 1, &got, err);
}

static int tracker_open(struct wc_tracker **out, wc_tracker_batch_source bnext,
			void *bctx, struct wc_err *err)
{
	struct wc_tracker *tr;

	*out = NULL;
	tr = calloc(1, sizeof(*tr));
	if (!tr)
		goto fail_alloc;
	/* hash_of()'s multiplier: the process's secret (map.h), odd. */
	tr->hash_mult = wc_map_key_of("tracker", 7) | 1;
	if (hash_grow(tr, err) < 0)
		goto fail_hash;
	tr->bnext = bnext;
	tr->bctx = bctx;
	wc_devtab_init(&tr->devtab, WC_MAX_DEVICES);
	tr->bound = WC_TRACKER_BOUND_NS;
	tr->stats.first_time = WC_NO_TIME;
	tr->stats.last_time = WC_NO_TIME;
	wc_err_clear(&tr->src_err);
	*out = tr;
	return 0;

fail_hash:
	free(tr);
	return -1;
fail_alloc:
	return wc_err_oom(err, NULL, NULL);
}

int wc_tracker_open_source(struct wc_tracker **out, wc_event_source next,
			   void *ctx, struct wc_err *err)
{
	if (tracker_open(out, one_at_a_time, NULL, err) < 0)
		return -1;
	(*out)->bctx = *out;
	(*out)->next = next;
	(*out)->ctx = ctx;
	return 0;
}

int wc_tracker_open_batch(struct wc_tracker **out,
			  wc_tracker_batch_source next, void *ctx,
			  struct wc_err *err)
{
	return tracker_open(out, next, ctx, err);
}

int wc_tracker_set_bound(struct wc_tracker *tr, uint32_t device, uint64_t ns)
{
	size_t i;

	if (ns == 0)
		return -1;
	if (device == 0) {
		tr->bound = ns;
		return 0;
	}
	for (i = 0; i < tr->nbounds; i++)
		if (tr->bounds[i].device == device)
			break;
	if (i == WC_MAX_DEVICES)
		return -1;
	tr->bounds[i].device = device;
	tr->bounds[i].ns = ns;
	if (i == tr->nbounds)
		tr->nbounds++;
	return 0;
}

int wc_tracker_set_hw_queues(struct wc_tracker *tr, uint32_t device,
			     uint32_t n)
{
	size_t i;

	if (device == 0 || n == 0)
		return -1;
	for (i = 0; i < tr->nhwqs; i++)
		if (tr->hwqs[i].device == device)
			break;
	if (i == WC_MAX_DEVICES)
		return -1;
	tr->hwqs[i].device = device;
	tr->hwqs[i].n = n;
	if (i == tr->nhwqs)
		tr->nhwqs++;
	return 0;
}

int wc_tracker_set_disk(struct wc_tracker *tr, const uint32_t *devs,
			size_t n)
{
	if (n > WC_ACCOUNT_PARTS)
		return -1;
	memcpy(tr->disk, devs, n * sizeof(tr->disk[0]));
	tr->ndisk = n;
	return 0;
}

void wc_tracker_set_lossy(struct wc_tracker *tr)
{
	tr->lossy = true;
}

const struct wc_tracker_stats *wc_tracker_stats(const struct wc_tracker *tr)
{
	return &tr->stats;
}

void wc_tracker_free(struct wc_tracker *tr)
{
	struct node *n, *next;
	size_t i;
	int k;

	if (!tr)
		return;
	for (n = tr->pool; n; n = next) {
		next = WC_TAILQ_NEXT(n, link);
		free(n);
	}
	for (i = 0; i < wc_devtab_count(&tr->devtab); i++)
		for (k = 0; k < K_NKINDS; k++)
			WC_TAILQ_FOREACH_SAFE(n, &tr->devs[i].lists[k].q, link,
					      next)
				free(n);
	free(tr->buckets);
	free(tr);
}

uint64_t wc_tracker_hash_steps(const struct wc_tracker *tr)
{
	return tr->hash_steps;
}

void wc_tracker_set_hash_mult(struct wc_tracker *tr, uint64_t mult)
{
	tr->hash_mult = mult | 1;
}
