package inventory

// CheckConsecutive is checkConsecutive, for the batch test.
var CheckConsecutive = checkConsecutive
