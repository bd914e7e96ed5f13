import Basics
import FoundationEssentials
import HTTPServer
import Imaging
import PlatformClient

/// One photo upload, in three steps: validate (the draft, a replayed photo id, the file, the fix),
/// keep (hash, EXIF position, type and size checked by decoding once while the thumbnail is made,
/// files into place, fsync) and record (the row). Runs in the async handler's Task, never on an MHD
/// poll thread; keeping blocks (decoding, hashing, fsync), so it runs on `work`'s threads, off the
/// Swift concurrency pool.
struct DraftPhotoUpload {
    let web: Web
    let drafts: Drafts
    let work: BlockingWork

    struct Answer: Encodable {
        var id: String
        var position: Int
        var thumb: String
        var latitude: Double?
        var longitude: Double?
        var accuracy: Double?
        var count: Int
        var locationSource: String
        /// True when this photo was already kept (a retried upload).
        var replayed = false
    }

    /// Either the next step's input, or the answer that ends the upload early.
    enum Step<Value> {
        case next(Value)
        case done(Response)
    }

    /// What validation let through.
    struct Validated {
        let userID: Int64
        let draft: Draft
        let file: UploadedFile
        let requestedID: String?
        /// The browser's fix from the form, if any.
        let sent: PhotoFix?
    }

    /// What the file turned out to be.
    struct Inspected: Sendable {
        let info: ImageInfo
        let sha256: String
        let exif: GPSFix?
    }

    func answer(_ request: Request, _ context: WebContext) async throws -> Response {
        // A photo the page named (`photo_id`) is kept by one upload at a time. A retry sent while the
        // first is still being kept waits for it, then is answered as a replay. Before, both wrote the
        // same two files, and one refused late (the draft filled, or submitted, by the other) removed
        // the files of the photo the other had just kept.
        if let named = request.formValue("photo_id"), PhotoFiles.isValidID(named) {
            return try await PhotoFiles.keeping.withExclusive(drafts.files.originalPath(named)) {
                // Past its deadline while it waited, the client has had its 503 and the upload's file
                // is gone: nothing is left to keep.
                guard !Task.isCancelled else { throw HTTPError(503) }
                return try await answerAlone(request, context)
            }
        }
        return try await answerAlone(request, context)
    }

    private func answerAlone(_ request: Request, _ context: WebContext) async throws -> Response {
        let upload: Validated
        switch try validate(request, context) {
        case .done(let response): return response
        case .next(let value): upload = value
        }
        let localID = upload.requestedID ?? UUID().uuidString.lowercased()
        let inspected: Inspected
        switch try await keep(upload, as: localID, context) {
        case .done(let response): return response
        case .next(let value): inspected = value
        }
        // A picked photo's own EXIF position wins; a captured frame has none and takes the browser's fix.
        let fix =
            inspected.exif.map {
                PhotoFix(latitude: $0.latitude, longitude: $0.longitude, accuracy: nil, altitude: $0.altitude)
            } ?? upload.sent
        let now = WallClock.now()
        let capturedAt = inspected.exif?.capturedAt ?? Self.clientTime(request) ?? ISO8601.utc(seconds: now)
        let photo = NewPhoto(
            localID: localID, contentType: "image/" + inspected.info.format.rawValue, size: upload.file.size,
            sha256: inspected.sha256, width: inspected.info.width, height: inspected.info.height, fix: fix,
            capturedAt: capturedAt)
        return try await record(
            photo, of: upload, now: now,
            locationSource: inspected.exif != nil ? "exif" : (upload.sent != nil ? "browser" : "none"),
            context)
    }

    private func refuse(_ code: String, _ key: String, _ status: Int, _ context: WebContext) -> Response {
        web.jsonError(code, context.messages["photos.errors.\(key)"], status: status, context: context)
    }

    /// A draft that is not open: its user is told when it expired; anything else is not found.
    private func missing(_ id: String, userID: Int64, _ context: WebContext) throws -> Response {
        try drafts.expiredAnswer(localID: id, userID: userID, json: true, web: web, context: context)
            ?? refuse("not_found", "draftNotFound", 404, context)
    }

    /// The draft is the user's and open; a photo id already kept is answered as a replay; one file, of
    /// an allowed size, in a draft with room; a fix in range.
    func validate(_ request: Request, _ context: WebContext) throws -> Step<Validated> {
        let user = try context.requireUser()
        guard let id = request.parameters["id"] else {
            return .done(refuse("not_found", "draftNotFound", 404, context))
        }
        guard let draft = try drafts.current(localID: id, userID: user.id, now: WallClock.now()) else {
            return .done(try missing(id, userID: user.id, context))
        }
        // The page names each photo (a UUID made when it was taken) so that a retry after a lost answer
        // (a dropped connection, a 503 past the deadline while the photo was being kept) is the same
        // photo again, not a second one.
        let requestedID = request.formValue("photo_id")
        if let requestedID {
            guard PhotoFiles.isValidID(requestedID) else { return .done(refuse("bad_id", "badID", 400, context)) }
            let existing = try drafts.store.photo(localID: requestedID, draft: draft)
            if existing.ownedElsewhere { return .done(refuse("bad_id", "badID", 409, context)) }
            if let photo = existing.photo { return .done(try replayAnswer(photo, draft, context)) }
        }
        guard request.files.count == 1, let file = request.files.first else {
            return .done(refuse("no_file", "noFile", 400, context))
        }
        guard file.size <= drafts.options.maxFileBytes else {
            return .done(refuse("too_large", "tooLarge", 413, context))
        }
        guard file.size > 0 else { return .done(refuse("not_image", "notImage", 415, context)) }
        guard try drafts.store.photoCount(reportID: draft.id) < Draft.maximumPhotos else {
            return .done(refuse("full", "full", 409, context))
        }
        switch Self.fix(from: request) {
        case .failure: return .done(refuse("bad_location", "badLocation", 400, context))
        case .success(let sent):
            return .next(Validated(userID: user.id, draft: draft, file: file, requestedID: requestedID, sent: sent))
        }
    }

    /// The upload kept as `localID` when libvips recognises it (JPEG, PNG or WebP within the pixel
    /// limit, decoded to its end), with its SHA-256 and EXIF position; else the refusal. Off the
    /// concurrency pool.
    func keep(_ upload: Validated, as localID: String, _ context: WebContext) async throws -> Step<Inspected> {
        switch try await Self.keepFile(upload.file.path, as: localID, files: drafts.files, work: work) {
        case .success(let value): return .next(value)
        case .failure(let error):
            web.log.info("photo refused: \(error)")
            if case .tooLarge = error { return .done(refuse("too_many_pixels", "tooManyPixels", 415, context)) }
            return .done(refuse("not_image", "notImage", 415, context))
        }
    }

    /// The row, at the next position of the draft (its files removed again when there is none); off
    /// the concurrency pool, as the commit waits for the disk.
    func record(
        _ photo: NewPhoto, of upload: Validated, now: Double, locationSource: String, _ context: WebContext
    ) async throws -> Response {
        let (store, draft, localID) = (drafts.store, upload.draft, photo.localID)
        let result: PhotoAddResult
        do {
            result = try await work.run { try store.addPhoto(photo, to: draft, now: now) }
        } catch let error as StoreError where error.isConflict {
            // The same photo id raced in twice (from two nodes: on one, copies wait for each other): the
            // first one is kept; this copy's files are its files, so nothing is removed, and the answer is
            // the replay's.
            if let replay = try replay(localID, draft, context) { return replay }
            return refuse("busy", "failed", 503, context)
        } catch {
            removeUnlessKept(localID, draft)
            throw error
        }
        switch result {
        case .full, .gone:
            // A copy of this photo kept meanwhile by another node may be what filled the draft, or it
            // went with the draft when it was submitted: that copy is the answer, and its files stay.
            if let replay = try replay(localID, draft, context) { return replay }
            removeUnlessKept(localID, draft)
            if case .full = result { return refuse("full", "full", 409, context) }
            return try missing(draft.localID, userID: upload.userID, context)
        case .added(let position):
            let count = try store.photoCount(reportID: draft.id)
            let answer = Answer(
                id: localID, position: position, thumb: "/photos/\(localID)/thumb", latitude: photo.fix?.latitude,
                longitude: photo.fix?.longitude, accuracy: photo.fix?.accuracy, count: count,
                locationSource: locationSource)
            return web.json(answer, status: 201, context: context)
        }
    }

    /// The answer to a photo already kept in this draft under `localID` (a retry's), if one is.
    private func replay(_ localID: String, _ draft: Draft, _ context: WebContext) throws -> Response? {
        try drafts.store.photo(localID: localID, draft: draft).photo.map { try replayAnswer($0, draft, context) }
    }

    /// A kept photo's answer to a retry of its upload: 200, "kept", `replayed`.
    private func replayAnswer(_ kept: DraftPhoto, _ draft: Draft, _ context: WebContext) throws -> Response {
        let answer = Answer(
            id: kept.localID, position: kept.position, thumb: "/photos/\(kept.localID)/thumb",
            latitude: kept.latitude, longitude: kept.longitude, accuracy: kept.accuracy,
            count: try drafts.store.photoCount(reportID: draft.id), locationSource: "kept", replayed: true)
        return web.json(answer, status: 200, context: context)
    }

    /// Removes this upload's files unless a row names them (a copy kept by another node, which shares
    /// the photo folder). When the store cannot say, they stay: a file no row names loses nothing, a
    /// kept photo without its file is lost.
    private func removeUnlessKept(_ localID: String, _ draft: Draft) {
        guard let found = try? drafts.store.photo(localID: localID, draft: draft), found.photo == nil,
            !found.ownedElsewhere
        else { return }
        drafts.files.remove(localID)
    }

    /// The upload at `path` hashed, its EXIF position read, checked and thumbnailed in one decode, and
    /// moved into place as `localID`, flushed; on `work`'s threads (also the needs-info answer's
    /// uploads, `ReplyPhotoUpload`). What libvips refused is the failure, with nothing left behind.
    static func keepFile(_ path: String, as localID: String, files: PhotoFiles, work: BlockingWork) async throws
        -> Result<Inspected, ImageError>
    {
        try await work.run { () throws -> Result<Inspected, ImageError> in
            let sha256 = try SHA256Stream.hashFile(at: path)
            let exif = Imaging.gpsFix(path: path)
            do {
                let info = try files.install(upload: path, as: localID)
                return .success(Inspected(info: info, sha256: sha256, exif: exif))
            } catch let error as ImageError {
                return .failure(error)
            }
        }
    }

    /// The browser's fix from the form: all of latitude and longitude or neither; numbers in range.
    static func fix(from request: Request) -> Result<PhotoFix?, PhotoFileError> {
        func number(_ name: String) -> Double?? {
            guard let text = request.formValue(name), !text.isEmpty else { return .some(nil) }
            guard let value = Double(text), value.isFinite else { return nil }
            return .some(value)
        }
        let bad = PhotoFileError(message: "bad location")
        guard let latitude = number("latitude"), let longitude = number("longitude"), let accuracy = number("accuracy"),
            let altitude = number("altitude")
        else { return .failure(bad) }
        guard let latitude, let longitude else {
            return latitude == nil && longitude == nil ? .success(nil) : .failure(bad)
        }
        guard (-90...90).contains(latitude), (-180...180).contains(longitude), (accuracy ?? 0) >= 0,
            abs(altitude ?? 0) < 100_000
        else { return .failure(bad) }
        return .success(PhotoFix(latitude: latitude, longitude: longitude, accuracy: accuracy, altitude: altitude))
    }

    /// The fix's time (milliseconds since 1970, as the Geolocation API gives it), when plausible.
    static func clientTime(_ request: Request) -> String? {
        guard let text = request.formValue("fix_time"), let millis = Double(text), millis.isFinite,
            millis > 946_684_800_000, millis < 4_102_444_800_000
        else { return nil }
        return ISO8601.utc(seconds: millis / 1000)
    }
}
