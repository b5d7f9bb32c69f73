INSERT INTO customers (email) VALUES ('demo.buyer@example.com');

INSERT INTO orders (customer_id, sku, quantity, total_cents)
SELECT id, 'MUG-001', 2, 2400 FROM customers WHERE email = 'demo.buyer@example.com';

INSERT INTO orders (customer_id, sku, quantity, total_cents)
SELECT id, 'TEE-042', 1, 1999 FROM customers WHERE email = 'demo.buyer@example.com';
