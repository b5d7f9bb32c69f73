"""Billing worker: turns billed orders into invoices."""
