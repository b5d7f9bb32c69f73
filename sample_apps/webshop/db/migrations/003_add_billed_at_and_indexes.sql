ALTER TABLE orders ADD COLUMN billed_at TEXT;

CREATE INDEX idx_orders_status ON orders (status);
CREATE INDEX idx_orders_customer_id ON orders (customer_id);
CREATE UNIQUE INDEX idx_invoices_order_id ON invoices (order_id);
