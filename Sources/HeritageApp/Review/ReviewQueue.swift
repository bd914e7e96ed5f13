import Mustache

/// The dashboard's queue (REV-05): the counters as tabs, each the link to its filter, what opens *More
/// filters*, and where *Review the oldest waiting* leads (the triage of REV-13 takes it from there).
enum ReviewQueue {
    /// A tab: its id (the page's `tab-…`), its filter as query pairs, and its count (nil: "all").
    struct Tab {
        var id: String
        var pairs: [(String, String)]
        var count: Int?
    }

    /// The queue's order: who waited longest comes first.
    static func tabList(_ counts: ReviewCounts) -> [Tab] {
        [
            Tab(id: "all", pairs: [], count: nil),
            Tab(id: "waiting", pairs: [("need", "waiting"), ("sort", "oldest")], count: counts.waitingForApproval),
            Tab(
                id: "published", pairs: [("need", "published"), ("sort", "oldest")], count: counts.publishedUnreviewed),
            Tab(id: "replied", pairs: [("need", "replied"), ("sort", "oldest")], count: counts.reporterReplied),
            Tab(id: "attention", pairs: [("delivery", "needs_attention")], count: counts.needsAttention),
            Tab(id: "held", pairs: [("delivery", "held")], count: counts.held),
        ]
    }

    static func href(_ pairs: [(String, String)]) -> String {
        pairs.isEmpty
            ? "/review"
            : "/review?" + pairs.map { "\($0.0)=\(ReviewQuery.percentEncoded($0.1))" }.joined(separator: "&")
    }

    /// The tabs for the template; the one whose filter is the page's is the current page.
    static func tabs(_ counts: ReviewCounts, query: ReviewQuery, messages: Messages) -> MustacheValue {
        .array(
            tabList(counts).map { tab in
                let filter = ReviewQuery(tab.pairs.map { (name: $0.0, value: $0.1) }).filter
                return [
                    "id": .string(tab.id), "href": .string(href(tab.pairs)),
                    "label": .string(messages["review.counts.\(tab.id)"]),
                    "count": .int(tab.count ?? 0), "hasCount": .bool(tab.count != nil),
                    "current": .bool(filter == query.filter && query.cursor == nil),
                ]
            })
    }

    /// Triage of the reports waiting for approval, oldest first: `/review/triage` opens the first of them
    /// that no other coordinator has claimed, and the waiting filter makes the next one follow; nil when
    /// none waits.
    static func oldestWaiting(_ store: any ReviewStore) throws -> String? {
        let pairs = tabList(ReviewCounts()).first { $0.id == "waiting" }?.pairs ?? []
        let query = ReviewQuery(pairs.map { (name: $0.0, value: $0.1) })
        guard try store.search(query.filter, after: nil, limit: 1).first != nil else { return nil }
        return "/review/triage?" + query.queryString
    }

    /// How many of the filters behind *More filters* are set: it opens when any is, so that a shared
    /// link shows all of its filter.
    static func moreCount(_ query: ReviewQuery) -> Int {
        [
            !query.filter.reporter.isEmpty, !query.fromText.isEmpty, !query.toText.isEmpty, query.filter.hasFailure,
            query.filter.trash, !query.boundsText.isEmpty,
        ].filter { $0 }.count
    }

    /// How many filters the page has besides its tab's (`need`; the order is no filter): a phone leaves
    /// the filters open when any.
    static func filterCount(_ query: ReviewQuery) -> Int {
        query.pairs.filter { $0.0 != "need" && $0.0 != "sort" }.count
    }

    /// The page without the map's bounds (nil when it has none): the bounds are no field to empty.
    static func withoutBounds(_ query: ReviewQuery) -> String? {
        guard !query.boundsText.isEmpty else { return nil }
        var rest = query
        rest.boundsText = ""
        rest.filter.bounds = nil
        return href(rest.pairs)
    }
}
