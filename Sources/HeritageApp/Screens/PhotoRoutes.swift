import FoundationEssentials
import HTTPServer
import Imaging
import Platform
import Storage

/// Photos of drafts: upload (CRE-05, the file-input fallback), removal (CRE-09, SUB-04) and serving to
/// their owner only. Nothing uploaded is ever served as HTML or script: the type is the one libvips
/// recognised, with nosniff and a CSP that allows nothing.
enum PhotoRoutes {
    static func register(on router: inout Router, web: Web, drafts: Drafts) {
        // The body limit of this route is one photo plus its few text fields.
        let upload = RouteOptions(maxBodyBytes: drafts.options.maxFileBytes + 64 * 1024)
        router.webAsync("POST", "/api/drafts/:id/photos", web, access: .api, options: upload) { request, context in
            try await DraftPhotoUpload(web: web, drafts: drafts).answer(request, context)
        }
        router.web("DELETE", "/api/drafts/:id/photos/:photo", web, access: .api) { request, context in
            try remove(request, context, web: web, drafts: drafts)
        }
        // The same by form (SUB-04 without JavaScript): back to the page it came from.
        router.web("POST", "/api/drafts/:id/photos/:photo/delete", web, access: .page) { request, context in
            try remove(request, context, web: web, drafts: drafts)
        }
        router.web("GET", "/photos/:photo/thumb", web, access: .page) { request, context in
            try serve(request, context, web: web, drafts: drafts, thumbnail: true)
        }
        router.web("GET", "/photos/:photo", web, access: .page) { request, context in
            try serve(request, context, web: web, drafts: drafts, thumbnail: false)
        }
    }

    static func remove(_ request: Request, _ context: WebContext, web: Web, drafts: Drafts) throws -> Response {
        let user = try context.requireUser()
        let notFound = web.jsonError(
            "not_found", context.messages["photos.errors.notFound"], status: 404, context: context)
        guard let id = request.parameters["id"], let photo = request.parameters["photo"], PhotoFiles.isValidID(photo)
        else {
            return notFound
        }
        let now = Web.now()
        guard let draft = try drafts.current(localID: id, userID: user.id, now: now) else {
            let json = request.method != "POST" || context.wantsJSON
            return try drafts.expiredAnswer(localID: id, userID: user.id, json: json, web: web, context: context)
                ?? notFound
        }
        guard try drafts.store.deletePhoto(localID: photo, draft: draft, now: now) else { return notFound }
        drafts.files.remove(photo)
        if request.method == "POST" && !context.wantsJSON {
            return web.redirect(LanguageSwitch.localPath(request.formValue("back") ?? "/reports/new"), context: context)
        }
        let count = try drafts.store.photoCount(reportID: draft.id)
        return web.json(["removed": photo, "count": String(count)], context: context)
    }

    static func serve(_ request: Request, _ context: WebContext, web: Web, drafts: Drafts, thumbnail: Bool) throws
        -> Response
    {
        let user = try context.requireUser()
        guard let photo = request.parameters["photo"], PhotoFiles.isValidID(photo),
            let storedType = try drafts.store.ownedPhotoType(localID: photo, userID: user.id)
        else {
            return web.errorPage(
                status: 404, titleKey: "photos.notFoundTitle", messageKey: "photos.errors.notFound", context: context)
        }
        let path = thumbnail ? drafts.files.thumbnailPath(photo) : drafts.files.originalPath(photo)
        let type = thumbnail ? "image/jpeg" : storedType
        // Only the three image types ever leave here, whatever the row says.
        guard ["image/jpeg", "image/png", "image/webp"].contains(type), let size = drafts.files.size(of: path) else {
            return web.errorPage(
                status: 404, titleKey: "photos.notFoundTitle", messageKey: "photos.errors.notFound", context: context)
        }
        var response = Response(
            status: 200, headers: Headers([("Content-Type", type)]), body: .file(path: path, size: size))
        response.headers.add("X-Content-Type-Options", "nosniff")
        response.headers.add("Content-Disposition", "inline")
        response.headers.add("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'; sandbox")
        // A photo's bytes never change under its id; private: it is one user's.
        response.headers.add("Cache-Control", "private, max-age=86400")
        return context.finish(ConditionalFile.respond(to: request, with: response))
    }
}

/// One photo upload: checks, hash, thumbnail, files into place, row. Runs in the async handler's Task,
/// never on an MHD poll thread (decoding and hashing a large photo takes a while).
struct DraftPhotoUpload {
    let web: Web
    let drafts: Drafts

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

    func answer(_ request: Request, _ context: WebContext) async throws -> Response {
        let user = try context.requireUser()
        let messages = context.messages
        func refuse(_ code: String, _ key: String, _ status: Int) -> Response {
            web.jsonError(code, messages["photos.errors.\(key)"], status: status, context: context)
        }
        // A draft that is not open: its user is told when it expired; anything else is not found.
        func missing(_ id: String) throws -> Response {
            try drafts.expiredAnswer(localID: id, userID: user.id, json: true, web: web, context: context)
                ?? refuse("not_found", "draftNotFound", 404)
        }
        guard let id = request.parameters["id"] else { return refuse("not_found", "draftNotFound", 404) }
        guard let draft = try drafts.current(localID: id, userID: user.id, now: Web.now()) else {
            return try missing(id)
        }
        // The page names each photo (a UUID made when it was taken) so that a retry after a lost answer
        // (a dropped connection, a 503 past the deadline while the photo was being kept) is the same
        // photo again, not a second one.
        let requestedID = request.formValue("photo_id")
        if let requestedID {
            guard PhotoFiles.isValidID(requestedID) else { return refuse("bad_id", "badID", 400) }
            let existing = try drafts.store.photo(localID: requestedID, draft: draft)
            if existing.ownedElsewhere { return refuse("bad_id", "badID", 409) }
            if let photo = existing.photo {
                let answer = Answer(
                    id: photo.localID, position: photo.position, thumb: "/photos/\(photo.localID)/thumb",
                    latitude: photo.latitude, longitude: photo.longitude, accuracy: photo.accuracy,
                    count: try drafts.store.photoCount(reportID: draft.id), locationSource: "kept", replayed: true)
                return web.json(answer, status: 200, context: context)
            }
        }
        guard request.files.count == 1, let file = request.files.first else { return refuse("no_file", "noFile", 400) }
        guard file.size <= drafts.options.maxFileBytes else { return refuse("too_large", "tooLarge", 413) }
        guard file.size > 0 else { return refuse("not_image", "notImage", 415) }
        guard try drafts.store.photoCount(reportID: draft.id) < DraftStore.maximumPhotos else {
            return refuse("full", "full", 409)
        }
        let sent: PhotoFix?
        switch Self.fix(from: request) {
        case .failure: return refuse("bad_location", "badLocation", 400)
        case .success(let fix): sent = fix
        }

        let info: ImageInfo
        do {
            info = try Imaging.inspect(path: file.path)
        } catch {
            if case .tooLarge = error { return refuse("too_many_pixels", "tooManyPixels", 415) }
            return refuse("not_image", "notImage", 415)
        }
        let sha256 = try SHA256Stream.hashFile(at: file.path)
        // A picked photo's own EXIF position wins; a captured frame has none and takes the browser's fix.
        let exif = Imaging.gpsFix(path: file.path)
        let fix =
            exif.map { PhotoFix(latitude: $0.latitude, longitude: $0.longitude, accuracy: nil, altitude: $0.altitude) }
            ?? sent
        let now = Web.now()
        let capturedAt = exif?.capturedAt ?? Self.clientTime(request) ?? Drafts.isoTime(now)
        let localID = requestedID ?? UUID().uuidString.lowercased()
        do {
            try drafts.files.install(upload: file.path, as: localID)
        } catch let error as ImageError {
            web.log.info("photo refused at thumbnail: \(error)")
            return refuse("not_image", "notImage", 415)
        }
        let photo = NewPhoto(
            localID: localID, contentType: "image/" + info.format.rawValue, size: file.size, sha256: sha256,
            width: info.width, height: info.height, fix: fix, capturedAt: capturedAt)
        let result: DraftStore.AddResult
        do {
            result = try drafts.store.addPhoto(photo, to: draft, now: now)
        } catch let error as SQLiteError where error.isConstraintViolation {
            // The same photo id raced in twice: the first one is kept; this copy's files are its files, so
            // nothing is removed. The page retries and is answered as a replay.
            return refuse("busy", "failed", 503)
        } catch {
            drafts.files.remove(localID)
            throw error
        }
        switch result {
        case .full:
            drafts.files.remove(localID)
            return refuse("full", "full", 409)
        case .gone:
            drafts.files.remove(localID)
            return try missing(draft.localID)
        case .added(let position):
            let count = try drafts.store.photoCount(reportID: draft.id)
            let answer = Answer(
                id: localID, position: position, thumb: "/photos/\(localID)/thumb", latitude: fix?.latitude,
                longitude: fix?.longitude, accuracy: fix?.accuracy, count: count,
                locationSource: exif != nil ? "exif" : (sent != nil ? "browser" : "none"))
            return web.json(answer, status: 201, context: context)
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
        return Drafts.isoTime(millis / 1000)
    }
}
