import SQLiteStorage

// How the outbox's records read from a row of the stores' queries, on either database.

extension OutboxReport {
    static let columns = """
        id, user_id, local_id, platform_report_id, state, name, designation, condition, occupancy,
        priority_category, owner_type, grade, latitude, longitude, accuracy, altitude, attempts,
        next_attempt_at, last_error, create_attempted_at, origin, review_state, discarded_at, withdraw_after
        """

    init(row: some SQLRowReading) throws {
        id = try row.int("id") ?? 0
        userID = try row.int("user_id") ?? 0
        localID = try row.string("local_id") ?? ""
        platformReportID = try row.string("platform_report_id")
        // An unknown state (a newer schema) is treated as one the worker leaves alone.
        state = ReportState(rawValue: try row.string("state") ?? "") ?? .held
        name = try row.string("name")
        designation = try row.string("designation")
        condition = try row.string("condition")
        occupancy = try row.string("occupancy")
        priorityCategory = try row.string("priority_category")
        ownerType = try row.string("owner_type")
        grade = try row.string("grade")
        latitude = try row.double("latitude")
        longitude = try row.double("longitude")
        accuracy = try row.double("accuracy")
        altitude = try row.double("altitude")
        attempts = Int(try row.int("attempts") ?? 0)
        nextAttemptAt = try row.double("next_attempt_at")
        lastError = try row.string("last_error")
        createAttemptedAt = try row.double("create_attempted_at")
        isAnonymous = try row.string("origin") == ReportOrigin.kiosk.rawValue
        isStoppedByReview = ReviewDeliveryRule.stops(
            review: ReviewState(rawValue: try row.string("review_state") ?? ""),
            discarded: try row.double("discarded_at") != nil)
        withdrawAfter = try row.double("withdraw_after")
    }
}

extension OutboxPhoto {
    static let columns = """
        id, local_id, position, content_type, size, sha256, latitude, longitude, accuracy, altitude,
        captured_at, state, platform_photo_id
        """

    init(row: some SQLRowReading) throws {
        id = try row.int("id") ?? 0
        localID = try row.string("local_id") ?? ""
        position = Int(try row.int("position") ?? 0)
        contentType = try row.string("content_type") ?? "image/jpeg"
        size = Int(try row.int("size") ?? 0)
        sha256 = (try row.string("sha256") ?? "").lowercased()
        latitude = try row.double("latitude")
        longitude = try row.double("longitude")
        accuracy = try row.double("accuracy")
        altitude = try row.double("altitude")
        capturedAt = try row.string("captured_at")
        state = State(rawValue: try row.string("state") ?? "") ?? .pending
        platformPhotoID = try row.string("platform_photo_id")
    }
}
