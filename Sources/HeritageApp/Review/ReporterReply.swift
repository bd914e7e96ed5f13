import Basics
import FoundationEssentials
import HTTPServer
import Mustache

/// The reporter's side of needs info (REV-04): `/reports/{localID}/reply` shows the coordinator's
/// message and a form to send the report back with a note. While the platform has nothing of the report
/// yet (`ReplyRoom.openSQL`: it waits for review, or the worker has not reached it) the reporter may
/// also correct its fields and add photos (`/api/reports/{localID}/reply/photos`, the creation page's
/// upload checks, up to `Draft.maximumPhotos`); the worker sends them with the report, once, when it is
/// approved. After that, only the note.
enum ReporterReply {
    static func register(on group: inout RouteGroup<Web>, review: Review, drafts: Drafts) {
        let web = review.web
        group.route("GET", "/reports/:id/reply", access: .page) { request, context in
            let user = try context.requireUser()
            guard let localID = request.parameters["id"],
                let found = try review.store.reporterView(localID: localID, userID: user.id),
                found.review == ReviewState.needsInfo.rawValue
            else {
                return web.errorPage(
                    status: 404, titleKey: "httpErrors.404.title", messageKey: "httpErrors.404.message",
                    context: context)
            }
            return try page(review, localID: localID, found: found, userID: user.id, form: nil, context: context)
        }
        group.route("POST", "/reports/:id/reply", access: .page, options: RouteOptions(maxBodyBytes: 16_384)) {
            request, context in
            let user = try context.requireUser()
            guard let localID = request.parameters["id"] else { throw HTTPError(404) }
            let gone = web.errorPage(
                status: 409, titleKey: "review.reply.title", messageKey: "review.reply.gone", context: context)
            guard let found = try review.store.reporterView(localID: localID, userID: user.id),
                found.review == ReviewState.needsInfo.rawValue
            else { return gone }
            let note = Text.trimmed(String((request.formValue("note") ?? "").prefix(2000)))
            var fields: ReportFields?
            if let room = try review.store.replyRoom(localID: localID, userID: user.id),
                let current = try review.store.row(id: room.id)
            {
                let form = corrected(current, sent: { request.formValue($0) }, messages: context.messages)
                guard form.isValid else {
                    return try page(
                        review, localID: localID, found: found, userID: user.id, form: form, context: context,
                        status: 422)
                }
                fields = form.fields
            }
            guard
                try review.store.reply(
                    localID: localID, userID: user.id, fields: fields, note: note, now: WallClock.now())
            else { return gone }
            return web.redirect("/reports", context: context)
        }
        // A photo added to the answer: the same checks as a draft's upload, on the head (signed in,
        // `X-CSRF-Token`, size, quotas, room) before a byte of body is read, then decoding.
        let maxBody = drafts.options.maxFileBytes + 64 * 1024
        let upload = RouteOptions(
            maxBodyBytes: maxBody, maxFiles: 1, maxFileBytes: drafts.options.maxFileBytes,
            beforeBody: { request in PhotoRoutes.uploadGate(request, web: web, drafts: drafts, maxBody: maxBody) })
        let work = drafts.photoWork  // the process's photo threads (Drafts.photoWork)
        group.routeAsync("POST", "/api/reports/:id/reply/photos", access: .api, options: upload) {
            request, context in
            try await ReplyPhotoUpload(review: review, drafts: drafts, work: work).answer(request, context)
        }
    }

    /// The report's fields with the form's corrections over them (a field the form does not send keeps
    /// its value), checked as the submission form checks them; a select left as it was is not checked.
    static func corrected(_ current: ReviewRow, sent: (String) -> String?, messages: Messages) -> SubmitForm {
        var form = SubmitForm()
        let stored: [String: String] = [
            "designation": current.designation ?? "", "condition": current.condition ?? "",
            "occupancy": current.occupancy ?? "", "priority_category": current.priorityCategory ?? "",
            "owner_type": current.ownerType ?? "", "grade": current.grade ?? "",
        ]
        form.name =
            sent("name").map { String(Text.trimmed($0).prefix(4 * SubmitForm.maximumNameLength)) }
            ?? current.name ?? ""
        for select in SubmitForm.selects {
            let given = sent(select.name).map { String($0.prefix(64)) }
            let value = given ?? stored[select.name] ?? ""
            form.codes[select.name] = value
            if value != stored[select.name], !select.codes.contains(value) {
                form.errors[select.name] =
                    messages[value.isEmpty ? "submit.errors.choose" : "submit.errors.unknownCode"]
            }
        }
        if form.name.isEmpty {
            form.errors["name"] = messages["submit.errors.nameEmpty"]
        } else if form.name.count > SubmitForm.maximumNameLength {
            form.errors["name"] = messages.format(
                "submit.errors.nameTooLong", ["max": String(SubmitForm.maximumNameLength)])
        } else if Text.hasControlCharacters(form.name) {
            form.errors["name"] = messages["submit.errors.nameControl"]
        }
        return form
    }

    static func page(
        _ review: Review, localID: String, found: ReporterView, userID: Int64, form: SubmitForm?,
        context: WebContext, status: Int = 200
    ) throws -> Response {
        let messages = context.messages
        var values: [String: MustacheValue] = [
            "localID": .string(localID), "message": MustacheValue(found.message),
            "note": .string(""),
        ]
        if let room = try review.store.replyRoom(localID: localID, userID: userID),
            let current = try review.store.row(id: room.id)
        {
            let shown = form ?? corrected(current, sent: { _ in nil }, messages: messages)
            let photos = try review.store.photos(reportID: room.id)
            values["canEdit"] = .bool(true)
            values["name"] = .string(shown.name)
            values["nameError"] = MustacheValue(shown.errors["name"])
            values["selects"] = shown.selectValues(messages)
            values["photos"] = .array(
                photos.enumerated().map { index, photo in
                    [
                        "thumb": .string("/photos/\(photo.localID)/thumb"),
                        "alt": .string(messages.format("photos.photoAlt", ["n": String(index + 1)])),
                    ]
                })
            values["canAddPhotos"] = .bool(photos.count < Draft.maximumPhotos)
            values["photoCount"] = .string(String(photos.count))
            values["maxPhotos"] = .string(String(Draft.maximumPhotos))
        } else {
            values["sentAlready"] = .bool(true)
        }
        return try review.web.render(
            "reply", title: messages["review.reply.title"], values, context: context, status: status,
            modules: ["reply"])
    }
}

/// One photo added to a needs-info answer: validated (the report still open to it, one file of an
/// allowed size, a fix in range), inspected and installed as a draft's photo is, then recorded in one
/// transaction that checks again that the report is open and has room (`ReviewStore.addReplyPhoto`).
struct ReplyPhotoUpload {
    let review: Review
    let drafts: Drafts
    let work: BlockingWork

    struct Answer: Encodable {
        var id: String
        var position: Int
        var thumb: String
        var count: Int
    }

    private func refuse(_ code: String, _ key: String, _ status: Int, _ context: WebContext) -> Response {
        review.web.jsonError(code, context.messages[key], status: status, context: context)
    }

    func answer(_ request: Request, _ context: WebContext) async throws -> Response {
        let user = try context.requireUser()
        guard let localID = request.parameters["id"],
            let room = try review.store.replyRoom(localID: localID, userID: user.id)
        else { return refuse("gone", "review.reply.photosClosed", 409, context) }
        guard request.files.count == 1, let file = request.files.first else {
            return refuse("no_file", "photos.errors.noFile", 400, context)
        }
        guard file.size <= drafts.options.maxFileBytes else {
            return refuse("too_large", "photos.errors.tooLarge", 413, context)
        }
        guard file.size > 0 else { return refuse("not_image", "photos.errors.notImage", 415, context) }
        guard room.photoCount < Draft.maximumPhotos else { return refuse("full", "photos.errors.full", 409, context) }
        guard case .success(let sent) = DraftPhotoUpload.fix(from: request) else {
            return refuse("bad_location", "photos.errors.badLocation", 400, context)
        }
        let photoID = UUID().uuidString.lowercased()
        let inspected: DraftPhotoUpload.Inspected
        switch try await DraftPhotoUpload.keepFile(file.path, as: photoID, files: drafts.files, work: work) {
        case .success(let value): inspected = value
        case .failure(let error):
            review.web.log.info("reply photo refused: \(error)")
            if case .tooLarge = error { return refuse("too_many_pixels", "photos.errors.tooManyPixels", 415, context) }
            return refuse("not_image", "photos.errors.notImage", 415, context)
        }
        let now = WallClock.now()
        let fix =
            inspected.exif.map {
                PhotoFix(latitude: $0.latitude, longitude: $0.longitude, accuracy: nil, altitude: $0.altitude)
            } ?? sent
        let photo = NewPhoto(
            localID: photoID, contentType: "image/" + inspected.info.format.rawValue, size: file.size,
            sha256: inspected.sha256, width: inspected.info.width, height: inspected.info.height, fix: fix,
            capturedAt: inspected.exif?.capturedAt ?? DraftPhotoUpload.clientTime(request) ?? ISO8601.utc(seconds: now))
        let (store, files) = (review.store, drafts.files)
        let result: PhotoAddResult
        do {
            result = try await work.run {
                try store.addReplyPhoto(photo, localID: localID, userID: user.id, now: now)
            }
        } catch {
            files.remove(photoID)
            throw error
        }
        switch result {
        case .added(let position):
            let count = try store.replyRoom(localID: localID, userID: user.id)?.photoCount ?? room.photoCount + 1
            let answer = Answer(id: photoID, position: position, thumb: "/photos/\(photoID)/thumb", count: count)
            return review.web.json(answer, status: 201, context: context)
        case .full:
            files.remove(photoID)
            return refuse("full", "photos.errors.full", 409, context)
        case .gone:
            files.remove(photoID)
            return refuse("gone", "review.reply.photosClosed", 409, context)
        }
    }
}
