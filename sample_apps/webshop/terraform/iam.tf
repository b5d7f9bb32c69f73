resource "aws_iam_policy" "services" {
  name        = "webshop-services-${var.environment}"
  description = "Runtime permissions for the webshop api and billing worker"

  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      {
        Sid      = "InvoiceObjects"
        Effect   = "Allow"
        Action   = ["s3:PutObject", "s3:GetObject"]
        Resource = "${aws_s3_bucket.invoices.arn}/*"
      },
      {
        Sid      = "BillingEvents"
        Effect   = "Allow"
        Action   = ["sqs:SendMessage"]
        Resource = aws_sqs_queue.billing_events.arn
      },
      {
        Sid      = "ServiceLogs"
        Effect   = "Allow"
        Action   = ["logs:PutLogEvents"]
        Resource = "${aws_cloudwatch_log_group.services.arn}:*"
      },
    ]
  })
}
