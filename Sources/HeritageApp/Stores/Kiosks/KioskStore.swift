/// Kiosks at heritage sites (KIO-01..07): a kiosk is a site (name, location, radius,
/// languages, idle time) with at most one enrolled tablet. The tablet holds a device credential whose
/// SHA-256 alone is stored (like web sessions); it is made from a one-time enrolment token (SHA-256
/// stored too) valid ten minutes. A kiosk has at most one visitor at a time: their unfinished report
/// is the kiosk's visit, a draft of the kiosk's platform account (`reports.origin = 'kiosk'`). A
/// submitted kiosk report gets a receipt: a short public code and a claim secret stored hashed,
/// single use, expiring. Every coordinator's step is in the review's audit log, in the same transaction.
protocol KioskStore: Sendable {
    /// A new kiosk, audited as `actor`; its id.
    func create(_ kiosk: NewKiosk, actor: String, now: Double) throws -> Int64
    /// Sets the one-time enrolment token (replacing any earlier one), audited; false when the kiosk is
    /// unknown or revoked.
    func issueEnrolment(kioskID: Int64, tokenHash: [UInt8], expiresAt: Double, actor: String, now: Double) throws
        -> Bool
    /// Spends the enrolment token: the kiosk's device credential becomes `credentialHash` (an earlier
    /// tablet's ends); nil when the token is unknown, spent, expired or its kiosk revoked.
    func enrol(tokenHash: [UInt8], credentialHash: [UInt8], now: Double) throws -> Int64?
    /// The kiosk a device credential stands for (revoked ones too: the tablet is told it is no longer
    /// enrolled).
    func kiosk(credentialHash: [UInt8]) throws -> Kiosk?
    func kiosk(id: Int64) throws -> Kiosk?
    /// Records that the tablet was seen, with the app version it runs.
    func touch(kioskID: Int64, appVersion: String?, now: Double) throws
    /// Every kiosk with its health: reports since `dayStart`, waiting for review; newest first.
    func kiosks(dayStart: Double, now: Double) throws -> [KioskSummary]
    /// Revokes the kiosk at once (its credential and any enrolment token stop working), audited; false
    /// when unknown or revoked already.
    func revoke(id: Int64, actor: String, now: Double) throws -> Bool
    /// The id of the user with that e-mail (`har kiosk create --account`), nil when they never signed in.
    func userID(email: String) throws -> Int64?
    /// The platform account (a signed-in coordinator) whose session uploads the kiosk's reports, audited;
    /// a dedicated account the kiosk had is dropped, its session with it.
    func setAccount(kioskID: Int64, userID: Int64, actor: String, now: Double) throws -> Bool
    /// The kiosk sends with a dedicated platform account from now on: its session (signed in once by an
    /// administrator; never its password) is kept on the kiosk's own users row, audited. The outcome says
    /// when the kiosk is unknown or revoked, or when that account is a person's here.
    func setDedicatedAccount(_ account: DedicatedAccount, kioskID: Int64, actor: String, now: Double) throws
        -> DedicatedAccountOutcome

    // MARK: The visitor

    /// The current visitor's draft, nil when there is none.
    func visit(kioskID: Int64) throws -> Draft?
    /// A new visitor's draft (any earlier unfinished one discarded: its photo ids are returned so the
    /// files go too); nil draft when the kiosk has no account or is revoked.
    func startVisit(kioskID: Int64, localID: String, now: Double) throws -> (draft: Draft?, discarded: [String])
    /// Discards the current visitor's unfinished report; the photo ids whose files are to go.
    func endVisit(kioskID: Int64, now: Double) throws -> [String]
    /// After the visit's draft was submitted: the site's location where no photo had one, the receipt,
    /// the audit row; the visit ends. False when the report is not the kiosk's submitted visit.
    func recordSubmission(kioskID: Int64, reportID: Int64, receipt: NewReceipt, now: Double) throws -> Bool
    /// The kiosk's draft queued (`DraftStore.submit`) and its submission recorded (`recordSubmission`)
    /// in one transaction: never a queued kiosk report without its receipt and audit row.
    func submit(
        kioskID: Int64, draftLocalID: String, userID: Int64, fields: ReportFields, token: String, receipt: NewReceipt,
        now: Double
    ) throws -> SubmitResult
    /// A report made on the tablet while the server was away, by the tablet's id for it: made once as a
    /// kiosk draft of the kiosk's account (not its visit), or found again. Nil when the kiosk cannot
    /// take reports (revoked, no account).
    func openDeviceReport(kioskID: Int64, localID: String, now: Double) throws -> DeviceDraftState?

    // MARK: Receipts

    func receipt(code: String) throws -> ReceiptStatus?
    /// Claims the receipt's report for `userID` when the secret matches, unclaimed and unexpired.
    func claim(code: String, secretHash: [UInt8], userID: Int64, now: Double) throws -> ClaimOutcome
    /// The reports the user claimed, newest first.
    func claimed(userID: Int64) throws -> [ReceiptStatus]
}

struct NewKiosk: Sendable, Equatable {
    var siteName: String
    var latitude: Double?
    var longitude: Double?
    var radiusMetres: Double = 100
    var languages = "en,fr"
    /// Nil: `HAR_KIOSK_IDLE_SECONDS`.
    var idleSeconds: Int?
    /// The platform account of its reports (the coordinator creating it on the page); nil from the CLI
    /// until a coordinator links theirs.
    var userID: Int64?
}

struct Kiosk: Sendable, Equatable {
    var id: Int64
    var siteName: String
    var latitude: Double?
    var longitude: Double?
    var radiusMetres: Double
    var languages: String
    var idleSeconds: Int?
    var userID: Int64?
    var createdBy: String
    var createdAt: Double
    var revokedAt: Double?
    var enrolledAt: Double?
    var lastSeenAt: Double?
    var appVersion: String?
    /// The users row the kiosk's reports belong to (its own, not the linked account's).
    var reportsUserID: Int64? = nil
    /// The e-mail of the kiosk's dedicated platform account, nil when it sends with the linked
    /// coordinator's (`userID`).
    var dedicatedAccount: String? = nil

    var isRevoked: Bool { revokedAt != nil }
}

struct KioskSummary: Sendable, Equatable {
    var kiosk: Kiosk
    /// The e-mail of the platform account, and whether its platform session is live.
    var accountEmail: String?
    var accountSignedIn: Bool
    /// Whether that account holds a coordinator's role now: without it the kiosk is not ready and its
    /// reports wait (REV-12).
    var accountHoldsRole = true
    /// The platform refused the dedicated account's session (its password changed, the account closed):
    /// the kiosk is not ready until an administrator signs it in again.
    var accountRefused = false
    var reportsToday: Int
    var waitingForReview: Int
}

struct NewReceipt: Sendable, Equatable {
    var code: String
    var secretHash: [UInt8]
    var expiresAt: Double
    /// The site's location was used: the photos had no usable one.
    var usedSiteLocation: Bool
}

/// A receipt's report as the public sees it (no photo, no location until approved).
struct ReceiptStatus: Sendable, Equatable {
    var code: String
    var siteName: String
    var name: String?
    var submittedAt: Double
    var review: String
    var delivery: String
    var reason: String?
    var latitude: Double?
    var longitude: Double?
    var expiresAt: Double
    var claimedBy: Int64?
}

enum ClaimOutcome: Sendable, Equatable {
    case claimed
    /// Claimed already (by this user: `mine`).
    case alreadyClaimed(mine: Bool)
    case expired
    case wrongSecret
    case unknown
}
