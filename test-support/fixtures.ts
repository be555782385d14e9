/** The venue of the reference samples (`venue-create.json`), as a create body. */
export const SAMPLE_HALL = {
  venue: 'Sample Hall',
  address: '1 Main St',
  city: 'Springfield',
  country: 'United States',
  state: 'IL',
  zip: '62701',
  phone: '555-0100',
  website: 'https://example.com/hall',
  description: 'A sample venue.',
}
