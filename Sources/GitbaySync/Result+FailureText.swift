extension Result {
    /// The error's text, nil on success.
    var failureText: String? {
        if case .failure(let error) = self { return FailureText.said(error) }
        return nil
    }
}
